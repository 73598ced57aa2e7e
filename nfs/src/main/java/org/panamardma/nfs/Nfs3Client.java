package org.panamardma.nfs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.panamardma.nfs.rpc.ReplyPlacement;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * A small NFS version 3 client (RFC 1813) over any {@link RpcTransport}: NULL, GETATTR, LOOKUP, READ, WRITE, COMMIT,
 * READDIR and READDIRPLUS. Get the root handle from the MOUNT protocol ({@link MountClient}).
 *
 * <p>Each method is one RPC; an error status from the server is an {@link NfsException}, an RPC or transport failure
 * another {@link IOException}. No retries (see {@link org.panamardma.oncrpc.tcp.TcpRpcClient}). Thread-safe as the
 * transport is.
 */
public final class Nfs3Client {
    private final RpcTransport transport;
    private final OpaqueAuth credential;
    private final Duration timeout;

    /**
     * @param transport connected to the server's NFS service (port 2049 over TCP, 20049 over RDMA)
     * @param credential the credential of every call (AUTH_SYS, see {@link #authSys})
     * @param timeout the timeout of every call
     */
    public Nfs3Client(RpcTransport transport, OpaqueAuth credential, Duration timeout) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.credential = Objects.requireNonNull(credential, "credential");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /** An AUTH_SYS credential (RFC 5531 section 10.2) for {@code uid}/{@code gid}, no supplementary groups. */
    public static OpaqueAuth authSys(String machineName, int uid, int gid) {
        return new AuthSysParms((int) (System.nanoTime() >>> 10), machineName, uid, gid,
                List.of()).toOpaqueAuth();
    }

    /** @return the transport */
    public RpcTransport transport() {
        return transport;
    }

    private <T> T call(int procedure, XdrEncodable arguments, ReplyReader<T> results)
            throws IOException, InterruptedException {
        return transport.call(Nfs3.PROGRAM, Nfs3.VERSION, procedure, credential, arguments, results, timeout);
    }

    /** NULL (procedure 0): does nothing, proves the server answers (RFC 1813 section 3.3.0). */
    public void ping() throws IOException, InterruptedException {
        call(Nfs3.PROC_NULL, XdrEncodable.VOID, ReplyReader.of(in -> Boolean.TRUE));
    }

    /** GETATTR (RFC 1813 section 3.3.1). */
    public Fattr3 getattr(FileHandle3 object) throws IOException, InterruptedException {
        return call(Nfs3.PROC_GETATTR, Nfs3Xdr.getattr(object), ReplyReader.of(Nfs3Xdr::getattrResults))
                .orThrow("GETATTR " + object);
    }

    /** LOOKUP of one name in a directory (RFC 1813 section 3.3.3). */
    public LookupResult lookup(FileHandle3 directory, String name) throws IOException, InterruptedException {
        return call(Nfs3.PROC_LOOKUP, Nfs3Xdr.lookup(directory, name), ReplyReader.of(Nfs3Xdr::lookupResults))
                .orThrow("LOOKUP " + name);
    }

    /**
     * READ of up to {@code into.byteSize()} bytes at {@code offset} into {@code into} (RFC 1813 section 3.3.6). Over
     * RPC-over-RDMA the server writes the data straight into {@code into} (a Write chunk).
     *
     * @return the result; fewer bytes than asked for at the end of the file
     */
    public ReadResult read(FileHandle3 file, long offset, MemorySegment into) throws IOException, InterruptedException {
        int count = (int) Math.min(into.byteSize(), Integer.MAX_VALUE);
        return call(Nfs3.PROC_READ, Nfs3Xdr.read(file, offset, count), Nfs3Xdr.readResults(into.asSlice(0, count)))
                .orThrow("READ " + count + " bytes at " + offset);
    }

    /**
     * Reads {@code into.byteSize()} bytes from {@code offset} with READs of at most {@code maxPerCall} bytes.
     *
     * @return the bytes read: less than asked for only if the file ended first
     */
    public long readFully(FileHandle3 file, long offset, MemorySegment into, int maxPerCall)
            throws IOException, InterruptedException {
        long done = 0;
        while (done < into.byteSize()) {
            MemorySegment part = into.asSlice(done, Math.min(maxPerCall, into.byteSize() - done));
            ReadResult r = read(file, offset + done, part);
            done += r.count();
            if (r.eof() || r.count() == 0) {
                break;
            }
        }
        return done;
    }

    /**
     * WRITE of {@code data} at {@code offset} (RFC 1813 section 3.3.7). Over RPC-over-RDMA the server pulls the data
     * from {@code data}'s memory (a Read chunk).
     */
    public WriteResult write(FileHandle3 file, long offset, MemorySegment data, StableHow stable)
            throws IOException, InterruptedException {
        return call(Nfs3.PROC_WRITE, Nfs3Xdr.write(file, offset, stable, data), ReplyReader.of(Nfs3Xdr::writeResults))
                .orThrow("WRITE " + data.byteSize() + " bytes at " + offset);
    }

    /** COMMIT of {@code count} bytes from {@code offset}, 0 for up to the end of the file (RFC 1813 section 3.3.21). */
    public CommitResult commit(FileHandle3 file, long offset, int count) throws IOException, InterruptedException {
        return call(Nfs3.PROC_COMMIT, Nfs3Xdr.commit(file, offset, count), ReplyReader.of(Nfs3Xdr::commitResults))
                .orThrow("COMMIT " + file);
    }

    /** One READDIR (RFC 1813 section 3.3.16): cookie 0 and verifier 0 start at the beginning. */
    public DirList3 readdir(FileHandle3 directory, long cookie, long cookieVerifier, int count)
            throws IOException, InterruptedException {
        ReplyReader<Nfs3Result<DirList3>> results = new ReplyReader<>() {
            @Override
            public Nfs3Result<DirList3> read(XdrDecoder in, ReplyPlacement placement) {
                return Nfs3Xdr.readdirResults(in);
            }

            @Override
            public long maxResultsSize() {
                return 4L + count; // the status, then at most count bytes of READDIR3resok (RFC 1813 3.3.16)
            }
        };
        return call(Nfs3.PROC_READDIR, Nfs3Xdr.readdir(directory, cookie, cookieVerifier, count), results)
                .orThrow("READDIR " + directory);
    }

    /** One READDIRPLUS (RFC 1813 section 3.3.17). */
    public DirList3 readdirplus(FileHandle3 directory, long cookie, long cookieVerifier, int dirCount, int maxCount)
            throws IOException, InterruptedException {
        ReplyReader<Nfs3Result<DirList3>> results = new ReplyReader<>() {
            @Override
            public Nfs3Result<DirList3> read(XdrDecoder in, ReplyPlacement placement) {
                return Nfs3Xdr.readdirplusResults(in);
            }

            @Override
            public long maxResultsSize() {
                return 4L + maxCount;
            }
        };
        return call(Nfs3.PROC_READDIRPLUS, Nfs3Xdr.readdirplus(directory, cookie, cookieVerifier, dirCount, maxCount),
                results).orThrow("READDIRPLUS " + directory);
    }

    /**
     * Lists a whole directory with READDIR (or READDIRPLUS), batch after batch, each resuming at the last entry's
     * cookie with the verifier of the previous batch (RFC 1813 section 3.3.16).
     *
     * @param count the {@code count} (READDIR) or {@code maxcount} (READDIRPLUS) of each call
     */
    public List<DirEntry3> listDirectory(FileHandle3 directory, int count, boolean plus)
            throws IOException, InterruptedException {
        List<DirEntry3> all = new ArrayList<>();
        long cookie = 0;
        long verifier = 0;
        while (true) {
            DirList3 batch = plus ? readdirplus(directory, cookie, verifier, count, count)
                    : readdir(directory, cookie, verifier, count);
            all.addAll(batch.entries());
            if (batch.eof()) {
                return all;
            }
            if (batch.entries().isEmpty()) {
                throw new IOException("READDIR of " + directory + " returned no entries and no eof: count " + count
                        + " too small for one entry?");
            }
            cookie = batch.entries().getLast().cookie();
            verifier = batch.cookieVerifier();
        }
    }
}
