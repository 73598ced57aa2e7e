package org.panamardma.nfs;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * The MOUNT protocol version 3 (RFC 1813 appendix I): MNT gives the root file handle of an export, UMNT tells the
 * server the client is done, EXPORT lists the exports. MOUNT always runs over an ordinary transport (TCP or UDP,
 * at the port rpcbind names), also when NFS itself uses RDMA.
 */
public final class MountClient {
    /** The MOUNT program number. */
    public static final int PROGRAM = 100005;
    /** MOUNT version 3, the one that goes with NFSv3. */
    public static final int VERSION = 3;
    public static final int PROC_NULL = 0;
    public static final int PROC_MNT = 1;
    public static final int PROC_UMNT = 3;
    public static final int PROC_EXPORT = 5;
    /** MNTPATHLEN: the longest export path (RFC 1813 appendix I, section 5.1.1). */
    public static final int MNTPATHLEN = 1024;
    /** MNTNAMLEN: the longest host or group name. */
    public static final int MNTNAMLEN = 255;

    /**
     * {@code mountres3_ok}.
     *
     * @param root the export's root file handle
     * @param authFlavors the RPC authentication flavors the server accepts for this export, most preferred first
     */
    public record MountResult(FileHandle3 root, List<Integer> authFlavors) {
        public MountResult {
            authFlavors = List.copyOf(authFlavors);
        }
    }

    /**
     * One {@code exportnode}.
     *
     * @param directory the exported path
     * @param groups the hosts or groups allowed to mount it
     */
    public record Export(String directory, List<String> groups) {
        public Export {
            groups = List.copyOf(groups);
        }
    }

    /** A MNT that failed: the server's {@link MountStat3}. */
    public static final class MountException extends IOException {
        private static final long serialVersionUID = 1L;
        private final MountStat3 status;

        public MountException(MountStat3 status, String path) {
            super(status + " mounting " + path);
            this.status = status;
        }

        /** @return the server's status */
        public MountStat3 status() {
            return status;
        }
    }

    private final RpcTransport transport;
    private final OpaqueAuth credential;
    private final Duration timeout;

    /**
     * @param transport connected to the server's mountd (its port from {@link PortmapClient#getPort})
     * @param credential AUTH_SYS: Linux's mountd checks the caller against the export's host list, not the uid
     */
    public MountClient(RpcTransport transport, OpaqueAuth credential, Duration timeout) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.credential = Objects.requireNonNull(credential, "credential");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /** NULL: proves mountd answers. */
    public void ping() throws IOException, InterruptedException {
        transport.call(PROGRAM, VERSION, PROC_NULL, credential, XdrEncodable.VOID, ReplyReader.of(in -> Boolean.TRUE),
                timeout);
    }

    /** MNT (RFC 1813 appendix I, section 5.2.1): the root handle of the export at {@code path}. */
    public MountResult mount(String path) throws IOException, InterruptedException {
        Object result = transport.call(PROGRAM, VERSION, PROC_MNT, credential, dirpath(path),
                ReplyReader.of(MountClient::decodeMountResult), timeout);
        if (result instanceof MountStat3 status) {
            throw new MountException(status, path);
        }
        return (MountResult) result;
    }

    /** UMNT (section 5.2.3): removes this client's entry for {@code path} from the server's mount list. */
    public void unmount(String path) throws IOException, InterruptedException {
        transport.call(PROGRAM, VERSION, PROC_UMNT, credential, dirpath(path), ReplyReader.of(in -> Boolean.TRUE),
                timeout);
    }

    /** EXPORT (section 5.2.5): the server's export list. */
    public List<Export> exports() throws IOException, InterruptedException {
        return transport.call(PROGRAM, VERSION, PROC_EXPORT, credential, XdrEncodable.VOID,
                ReplyReader.of(MountClient::decodeExports), timeout);
    }

    /** MNT and UMNT arguments: {@code dirpath}, a {@code string<MNTPATHLEN>}. */
    public static XdrEncodable dirpath(String path) {
        return out -> out.putString(path, MNTPATHLEN);
    }

    /**
     * {@code mountres3}: the status, and on MNT3_OK the handle and the flavors.
     *
     * @return a {@link MountResult}, or the failing {@link MountStat3}
     */
    public static Object decodeMountResult(XdrDecoder in) {
        MountStat3 status = in.getEnum(MountStat3::of, "mountstat3");
        if (status != MountStat3.MNT3_OK) {
            return status;
        }
        FileHandle3 root = FileHandle3.decode(in);
        return new MountResult(root, in.getArray(Integer.MAX_VALUE, XdrDecoder::getInt));
    }

    /** {@code exports}: a linked list of {@code exportnode}, each with a linked list of {@code groupnode}. */
    public static List<Export> decodeExports(XdrDecoder in) {
        List<Export> exports = new ArrayList<>();
        while (in.getBoolean()) {
            String dir = in.getString(MNTPATHLEN);
            List<String> groups = new ArrayList<>();
            while (in.getBoolean()) {
                groups.add(in.getString(MNTNAMLEN));
            }
            exports.add(new Export(dir, groups));
        }
        return exports;
    }
}
