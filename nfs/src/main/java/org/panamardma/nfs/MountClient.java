package org.panamardma.nfs;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrEncodable;

/**
 * A client of the MOUNT protocol version 3 (RFC 1813 appendix I; its numbers and types are {@link Mount3}'s, shared
 * with the server): MNT gives the root file handle of an export, UMNT tells the
 * server the client is done, EXPORT lists the exports. MOUNT always runs over an ordinary transport (TCP or UDP,
 * at the port rpcbind names), also when NFS itself uses RDMA.
 */
public final class MountClient {
    private static final int PROGRAM = Mount3.PROGRAM;
    private static final int VERSION = Mount3.VERSION;

    /** A MNT that failed: the server's {@link MountStat3}. */
    public static final class MountException extends IOException {
        private static final long serialVersionUID = 1L;
        /** The server's status. */
        private final MountStat3 status;

        /**
         * A failed MNT of {@code path}.
         *
         * @param status the server's status, not MNT3_OK
         * @param path the path asked for, named in the message
         */
        public MountException(MountStat3 status, String path) {
            super(status + " mounting " + path);
            this.status = status;
        }

        /** {@return the server's status} */
        public MountStat3 status() {
            return status;
        }
    }

    private final RpcTransport transport;
    private final OpaqueAuth credential;
    private final Duration timeout;

    /**
     * A client making every call with {@code credential} and {@code timeout}. It does not own the transport: closing it
     * is the caller's.
     *
     * @param transport connected to the server's mountd (its port from {@link PortmapClient#getPort})
     * @param credential AUTH_SYS: Linux's mountd checks the caller against the export's host list, not the uid
     * @param timeout the timeout of every call
     */
    public MountClient(RpcTransport transport, OpaqueAuth credential, Duration timeout) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.credential = Objects.requireNonNull(credential, "credential");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * NULL: proves mountd answers.
     *
     * @throws IOException an {@code RpcException} when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public void ping() throws IOException, InterruptedException {
        transport.call(
                PROGRAM,
                VERSION,
                Mount3.PROC_NULL,
                credential,
                XdrEncodable.VOID,
                ReplyReader.of(in -> Boolean.TRUE),
                timeout);
    }

    /**
     * MNT (RFC 1813 appendix I, section 5.2.1): the root handle of the export at {@code path}.
     *
     * @param path the export's path on the server
     * @return the root handle and the auth flavors the server accepts for it
     * @throws IOException a {@link MountException} with the server's status if it refuses, an {@code RpcException} when
     *        the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public Mount3.MountResult mount(String path) throws IOException, InterruptedException {
        Object result = transport.call(
                PROGRAM,
                VERSION,
                Mount3.PROC_MNT,
                credential,
                Mount3.dirpath(path),
                ReplyReader.of(Mount3::decodeMountResult),
                timeout);
        if (result instanceof MountStat3 status) {
            throw new MountException(status, path);
        }
        return (Mount3.MountResult) result;
    }

    /**
     * UMNT (section 5.2.3): removes this client's entry for {@code path} from the server's mount list.
     *
     * @param path the export's path, as mounted
     * @throws IOException an {@code RpcException} when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public void unmount(String path) throws IOException, InterruptedException {
        transport.call(
                PROGRAM,
                VERSION,
                Mount3.PROC_UMNT,
                credential,
                Mount3.dirpath(path),
                ReplyReader.of(in -> Boolean.TRUE),
                timeout);
    }

    /**
     * EXPORT (section 5.2.5): the server's export list.
     *
     * @return the exports and the hosts or groups allowed each
     * @throws IOException an {@code RpcException} when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public List<Mount3.Export> exports() throws IOException, InterruptedException {
        return transport.call(
                PROGRAM,
                VERSION,
                Mount3.PROC_EXPORT,
                credential,
                XdrEncodable.VOID,
                ReplyReader.of(Mount3::decodeExports),
                timeout);
    }
}
