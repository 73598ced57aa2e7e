package org.panamardma.nfs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.panamardma.nfs.rpc.ReplyPlacement;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * A small NFS version 3 client (RFC 1813) over any {@link RpcTransport}: every procedure (NULL, GETATTR, SETATTR,
 * LOOKUP, ACCESS, READLINK, READ, WRITE, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME, LINK, READDIR,
 * READDIRPLUS, FSSTAT, FSINFO, PATHCONF, COMMIT). Get the root handle from the MOUNT protocol ({@link MountClient}).
 *
 * <p>Each method is one RPC, except {@link #readFully}/{@link #writeFully} (a call per part); an error status from
 * the server is an {@link NfsException}, an RPC or transport failure another {@link IOException}. No retries (see
 * {@link org.panamardma.oncrpc.tcp.TcpRpcClient}). Thread-safe as the transport is.
 *
 * <h2>The server's limits</h2>
 * READs and WRITEs keep to the server's FSINFO limits (RFC 1813 section 3.3.19), as Linux's client does: a READ never
 * asks for more than {@code rtmax}, and a {@link #write} of more than {@code wtmax} bytes is refused before anything
 * is sent ({@link #writeFully} splits instead). This is not politeness: over RPC-over-RDMA Linux's knfsd pulls an
 * oversized WRITE's Read chunk into memory it never allocated (its 6.12 kernel oopsed in this project's testbed).
 * The client learns the limits by itself, lazily: the first READ or WRITE sends one FSINFO for its file's handle and
 * the answer holds for the client's lifetime (one lock, so concurrent first calls send one FSINFO). Lazily rather
 * than by an explicit step the user must remember, because forgetting it must not be able to crash a server; an
 * application may still call {@link #fsinfo} at mount time to learn them up front. The limits are per client, not per
 * file system: connect a client per server (knfsd's limits are the transport's, the same for all its exports).
 */
public final class Nfs3Client {
    private final RpcTransport transport;
    private final OpaqueAuth credential;
    private final Duration timeout;
    private final ReentrantLock learning = new ReentrantLock();
    private volatile FsInfo limits;

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
        return new AuthSysParms((int) (System.nanoTime() >>> 10), machineName, uid, gid, List.of()).toOpaqueAuth();
    }

    /** {@return the transport} */
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
     * FSINFO (RFC 1813 section 3.3.19): the limits and preferences of the file system holding {@code fsroot}. If this
     * client does not know its limits yet, the answer becomes them (see the class comment); a later answer does not
     * replace them.
     *
     * @param fsroot a handle in the file system, normally its root
     * @throws IOException if the server's limits are unusable (rtmax or wtmax 0)
     */
    public FsInfo fsinfo(FileHandle3 fsroot) throws IOException, InterruptedException {
        FsInfo info = call(Nfs3.PROC_FSINFO, Nfs3Xdr.fsinfo(fsroot), ReplyReader.of(Nfs3Xdr::fsinfoResults))
                .orThrow("FSINFO " + fsroot);
        if (info.rtmax() == 0 || info.wtmax() == 0) {
            throw new IOException("FSINFO from " + transport.peer() + " gives no usable limits: rtmax " + info.rtmax()
                    + ", wtmax " + info.wtmax());
        }
        learning.lock();
        try {
            if (limits == null) {
                limits = info;
            }
        } finally {
            learning.unlock();
        }
        return info;
    }

    /** {@return the limits this client keeps to, if it has learnt them yet (see the class comment)} */
    public Optional<FsInfo> limits() {
        return Optional.ofNullable(limits);
    }

    /** The limits, asking the server (FSINFO on {@code file}) the first time; concurrent first callers ask once. */
    private FsInfo limits(FileHandle3 file) throws IOException, InterruptedException {
        FsInfo known = limits;
        if (known != null) {
            return known;
        }
        learning.lockInterruptibly();
        try {
            if (limits == null) {
                fsinfo(file); // the lock is reentrant: sets limits
            }
            return limits;
        } finally {
            learning.unlock();
        }
    }

    /**
     * READ of up to {@code into.byteSize()} bytes at {@code offset} into {@code into} (RFC 1813 section 3.3.6), but
     * never more than the server's {@code rtmax}. Over RPC-over-RDMA the server writes the data straight into
     * {@code into} (a Write chunk).
     *
     * @return the result; fewer bytes than asked for at the end of the file, or when {@code into} is larger than
     *         {@code rtmax} or the server returns less
     */
    public ReadResult read(FileHandle3 file, long offset, MemorySegment into) throws IOException, InterruptedException {
        int count = (int) Math.min(into.byteSize(), limits(file).maxReadSize());
        return call(Nfs3.PROC_READ, Nfs3Xdr.read(file, offset, count), Nfs3Xdr.readResults(into.asSlice(0, count)))
                .orThrow("READ " + count + " bytes at " + offset);
    }

    /**
     * Reads {@code into.byteSize()} bytes from {@code offset} with READs of the server's preferred size
     * ({@code rtpref}, at most {@code rtmax}).
     *
     * @return the bytes read: less than asked for only if the file ended first
     */
    public long readFully(FileHandle3 file, long offset, MemorySegment into) throws IOException, InterruptedException {
        return readFully(file, offset, into, limits(file).preferredReadSize());
    }

    /**
     * Reads {@code into.byteSize()} bytes from {@code offset} with READs of at most {@code maxPerCall} bytes (and at
     * most the server's {@code rtmax}).
     *
     * @return the bytes read: less than asked for only if the file ended first
     */
    public long readFully(FileHandle3 file, long offset, MemorySegment into, int maxPerCall)
            throws IOException, InterruptedException {
        if (maxPerCall <= 0) {
            throw new IllegalArgumentException("maxPerCall " + maxPerCall + ": must be positive");
        }
        int perCall = Math.min(maxPerCall, limits(file).maxReadSize());
        long done = 0;
        while (done < into.byteSize()) {
            MemorySegment part = into.asSlice(done, Math.min(perCall, into.byteSize() - done));
            ReadResult r = read(file, offset + done, part);
            done += r.count();
            if (r.eof() || r.count() == 0) {
                break;
            }
        }
        return done;
    }

    /**
     * WRITE of {@code data} at {@code offset} (RFC 1813 section 3.3.7): one call, so at most the server's
     * {@code wtmax} bytes (see {@link #writeFully} for more). Over RPC-over-RDMA the server pulls the data from
     * {@code data}'s memory (a Read chunk).
     *
     * @return the result; the server may write fewer bytes than given ({@link WriteResult#count})
     * @throws IllegalArgumentException if {@code data} is larger than the server's {@code wtmax}: no WRITE is sent
     */
    public WriteResult write(FileHandle3 file, long offset, MemorySegment data, StableHow stable)
            throws IOException, InterruptedException {
        FsInfo l = limits(file);
        if (data.byteSize() > l.wtmax()) {
            throw new IllegalArgumentException("WRITE of " + data.byteSize() + " bytes exceeds the server's limit"
                    + " of " + l.wtmax() + " bytes per WRITE (FSINFO wtmax of " + transport.peer()
                    + ", RFC 1813 section 3.3.19); nothing was sent: use writeFully to split it");
        }
        return writeOnce(file, offset, data, stable);
    }

    private WriteResult writeOnce(FileHandle3 file, long offset, MemorySegment data, StableHow stable)
            throws IOException, InterruptedException {
        return call(Nfs3.PROC_WRITE, Nfs3Xdr.write(file, offset, stable, data), ReplyReader.of(Nfs3Xdr::writeResults))
                .orThrow("WRITE " + data.byteSize() + " bytes at " + offset);
    }

    /**
     * Writes all of {@code data} at {@code offset} with WRITEs of the server's preferred size ({@code wtpref}, at most
     * {@code wtmax}), one after another; a WRITE that writes less than it carried is followed by one for the rest.
     *
     * @return the total; unless {@link WriteFullyResult#committed} is FILE_SYNC, COMMIT makes the data durable. For
     *         empty {@code data} nothing is sent (0 calls, FILE_SYNC, verifier 0)
     * @throws IOException if a WRITE writes nothing (no progress), or the write verifier changed between WRITEs
     *                     when one of them was UNSTABLE (the server restarted and may have lost that data: write it
     *                     again); the bytes before the failing call may have been written
     */
    public WriteFullyResult writeFully(FileHandle3 file, long offset, MemorySegment data, StableHow stable)
            throws IOException, InterruptedException {
        Objects.requireNonNull(stable, "stable");
        int perCall = limits(file).preferredWriteSize();
        long done = 0;
        int calls = 0;
        StableHow weakest = StableHow.FILE_SYNC;
        Long verifier = null;
        while (done < data.byteSize()) {
            MemorySegment part = data.asSlice(done, Math.min(perCall, data.byteSize() - done));
            WriteResult r = writeOnce(file, offset + done, part, stable);
            calls++;
            if (r.count() <= 0 || r.count() > part.byteSize()) {
                throw new IOException("WRITE of " + part.byteSize() + " bytes at " + (offset + done) + " to "
                        + transport.peer() + " wrote " + r.count() + " bytes");
            }
            if (r.committed().compareTo(weakest) < 0) {
                weakest = r.committed();
            }
            if (verifier != null && verifier != r.verifier() && weakest == StableHow.UNSTABLE) {
                throw new IOException("the write verifier of " + transport.peer() + " changed after " + done
                        + " bytes: the server restarted and may have lost the UNSTABLE data; write it again");
            }
            verifier = r.verifier();
            done += r.count();
        }
        return new WriteFullyResult(done, calls, weakest, verifier == null ? 0 : verifier);
    }

    /** SETATTR (RFC 1813 section 3.3.2); {@code guard}, if not null, is the ctime the object must still have. */
    public WccData setattr(FileHandle3 object, Sattr3 attributes, NfsTime3 guard)
            throws IOException, InterruptedException {
        return call(Nfs3.PROC_SETATTR, Nfs3Xdr.setattr(object, attributes, guard), ReplyReader.of(Nfs3Xdr::wccResults))
                .orThrow("SETATTR " + object);
    }

    /** ACCESS (RFC 1813 section 3.3.4): which of the {@code Nfs3.ACCESS_*} bits in {@code access} the caller has. */
    public int access(FileHandle3 object, int access) throws IOException, InterruptedException {
        return call(Nfs3.PROC_ACCESS, Nfs3Xdr.access(object, access), ReplyReader.of(Nfs3Xdr::accessResults))
                .orThrow("ACCESS " + object);
    }

    /** READLINK (RFC 1813 section 3.3.5). */
    public String readlink(FileHandle3 symlink) throws IOException, InterruptedException {
        return call(Nfs3.PROC_READLINK, symlink::encodeTo, ReplyReader.of(Nfs3Xdr::readlinkResults))
                .orThrow("READLINK " + symlink);
    }

    /**
     * CREATE (RFC 1813 section 3.3.8) of a regular file.
     *
     * @param mode {@link Nfs3#CREATE_UNCHECKED}, {@link Nfs3#CREATE_GUARDED} or {@link Nfs3#CREATE_EXCLUSIVE}
     * @param attributes the attributes (UNCHECKED, GUARDED)
     * @param verifier the create verifier (EXCLUSIVE)
     */
    public DirOpResult create(FileHandle3 directory, String name, int mode, Sattr3 attributes, long verifier)
            throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_CREATE,
                        Nfs3Xdr.create(directory, name, mode, attributes, verifier),
                        ReplyReader.of(Nfs3Xdr::dirOpResults))
                .orThrow("CREATE " + name);
    }

    /** CREATE, UNCHECKED, with mode {@code mode}. */
    public DirOpResult create(FileHandle3 directory, String name, int mode) throws IOException, InterruptedException {
        return create(directory, name, Nfs3.CREATE_UNCHECKED, Sattr3.mode(mode), 0);
    }

    /** MKDIR (RFC 1813 section 3.3.9). */
    public DirOpResult mkdir(FileHandle3 directory, String name, Sattr3 attributes)
            throws IOException, InterruptedException {
        return call(Nfs3.PROC_MKDIR, Nfs3Xdr.mkdir(directory, name, attributes), ReplyReader.of(Nfs3Xdr::dirOpResults))
                .orThrow("MKDIR " + name);
    }

    /** SYMLINK (RFC 1813 section 3.3.10). */
    public DirOpResult symlink(FileHandle3 directory, String name, String target)
            throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_SYMLINK,
                        Nfs3Xdr.symlink(directory, name, Sattr3.NONE, target),
                        ReplyReader.of(Nfs3Xdr::dirOpResults))
                .orThrow("SYMLINK " + name);
    }

    /** MKNOD (RFC 1813 section 3.3.11); {@code major}/{@code minor} only count for devices. */
    public DirOpResult mknod(
            FileHandle3 directory, String name, FileType3 type, Sattr3 attributes, int major, int minor)
            throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_MKNOD,
                        Nfs3Xdr.mknod(directory, name, type, attributes, major, minor),
                        ReplyReader.of(Nfs3Xdr::dirOpResults))
                .orThrow("MKNOD " + name);
    }

    /** REMOVE (RFC 1813 section 3.3.12). */
    public WccData remove(FileHandle3 directory, String name) throws IOException, InterruptedException {
        return call(Nfs3.PROC_REMOVE, Nfs3Args.DirOp.utf8(directory, name), ReplyReader.of(Nfs3Xdr::wccResults))
                .orThrow("REMOVE " + name);
    }

    /** RMDIR (RFC 1813 section 3.3.13). */
    public WccData rmdir(FileHandle3 directory, String name) throws IOException, InterruptedException {
        return call(Nfs3.PROC_RMDIR, Nfs3Args.DirOp.utf8(directory, name), ReplyReader.of(Nfs3Xdr::wccResults))
                .orThrow("RMDIR " + name);
    }

    /** RENAME (RFC 1813 section 3.3.14). */
    public RenameResult rename(FileHandle3 fromDirectory, String fromName, FileHandle3 toDirectory, String toName)
            throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_RENAME,
                        Nfs3Xdr.rename(fromDirectory, fromName, toDirectory, toName),
                        ReplyReader.of(Nfs3Xdr::renameResults))
                .orThrow("RENAME " + fromName + " " + toName);
    }

    /** LINK (RFC 1813 section 3.3.15). */
    public LinkResult link(FileHandle3 file, FileHandle3 directory, String name)
            throws IOException, InterruptedException {
        return call(Nfs3.PROC_LINK, Nfs3Xdr.link(file, directory, name), ReplyReader.of(Nfs3Xdr::linkResults))
                .orThrow("LINK " + name);
    }

    /** FSSTAT (RFC 1813 section 3.3.18). */
    public FsStat fsstat(FileHandle3 fsroot) throws IOException, InterruptedException {
        return call(Nfs3.PROC_FSSTAT, fsroot::encodeTo, ReplyReader.of(Nfs3Xdr::fsstatResults))
                .orThrow("FSSTAT " + fsroot);
    }

    /** PATHCONF (RFC 1813 section 3.3.20). */
    public PathConf pathconf(FileHandle3 object) throws IOException, InterruptedException {
        return call(Nfs3.PROC_PATHCONF, object::encodeTo, ReplyReader.of(Nfs3Xdr::pathconfResults))
                .orThrow("PATHCONF " + object);
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
        return call(
                        Nfs3.PROC_READDIRPLUS,
                        Nfs3Xdr.readdirplus(directory, cookie, cookieVerifier, dirCount, maxCount),
                        results)
                .orThrow("READDIRPLUS " + directory);
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
            DirList3 batch = plus
                    ? readdirplus(directory, cookie, verifier, count, count)
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
