package org.panamardma.nfs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrEncodable;

/**
 * The calls of {@link Nfs3Client} on one object, a file or any object of the export: its attributes (GETATTR,
 * SETATTR, ACCESS, READLINK), its data (READ, WRITE, COMMIT, and the reads and writes of many calls), and the file
 * system it is in (FSSTAT, FSINFO, PATHCONF), within the server's limits, which it learns (the class comment of
 * {@link Nfs3Client}). Also what every call shares: the transport, the credential and the timeout.
 *
 * <p>A superclass rather than a helper object so that these public methods stay {@link Nfs3Client}'s own, in its
 * javadoc and for callers; sealed: {@link Nfs3Client} is its only subclass. The names in directories and their
 * listing are {@link Nfs3Client}'s.
 */
abstract sealed class Nfs3FileCalls permits Nfs3Client {
    private final RpcTransport transport;
    private final OpaqueAuth credential;
    private final Duration timeout;
    private final ReentrantLock learning = new ReentrantLock();
    private volatile FsInfo limits;

    Nfs3FileCalls(RpcTransport transport, OpaqueAuth credential, Duration timeout) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.credential = Objects.requireNonNull(credential, "credential");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /** {@return the transport} */
    public RpcTransport transport() {
        return transport;
    }

    final <T> T call(int procedure, XdrEncodable arguments, ReplyReader<T> results)
            throws IOException, InterruptedException {
        return transport.call(Nfs3.PROGRAM, Nfs3.VERSION, procedure, credential, arguments, results, timeout);
    }

    /**
     * GETATTR (RFC 1813 section 3.3.1).
     *
     * @param object any file handle of the export
     * @return the attributes
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public Fattr3 getattr(FileHandle3 object) throws IOException, InterruptedException {
        return call(Nfs3.PROC_GETATTR, Nfs3Xdr.getattr(object), ReplyReader.of(Nfs3ResultsXdr::getattrResults))
                .orThrow("GETATTR " + object);
    }

    /**
     * FSINFO (RFC 1813 section 3.3.19): the limits and preferences of the file system holding {@code fsroot}. If this
     * client does not know its limits yet, the answer becomes them (see the class comment); a later answer does not
     * replace them.
     *
     * @param fsroot a handle in the file system, normally its root
     * @return the file system's limits and preferences
     * @throws IOException if the server's limits are unusable (rtmax or wtmax 0)
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public FsInfo fsinfo(FileHandle3 fsroot) throws IOException, InterruptedException {
        FsInfo info = call(Nfs3.PROC_FSINFO, Nfs3Xdr.fsinfo(fsroot), ReplyReader.of(Nfs3ResultsXdr::fsinfoResults))
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
     * @param file the regular file's handle
     * @param offset the byte offset in the file, not negative
     * @param into where the data goes; its size is the count asked for. Over RDMA it is registered for the call, so it
     *        should be native memory the caller keeps alive until the call returns
     * @return the result; fewer bytes than asked for at the end of the file, or when {@code into} is larger than
     *         {@code rtmax} or the server returns less
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public ReadResult read(FileHandle3 file, long offset, MemorySegment into) throws IOException, InterruptedException {
        int count = (int) Math.min(into.byteSize(), limits(file).maxReadSize());
        return call(
                        Nfs3.PROC_READ,
                        Nfs3Xdr.read(file, offset, count),
                        Nfs3ResultsXdr.readResults(into.asSlice(0, count)))
                .orThrow("READ " + count + " bytes at " + offset);
    }

    /**
     * Reads {@code into.byteSize()} bytes from {@code offset} with READs of the server's preferred size
     * ({@code rtpref}, at most {@code rtmax}).
     *
     * @param file the regular file's handle
     * @param offset the byte offset in the file, not negative
     * @param into where the data goes; filled from its start
     * @return the bytes read: less than asked for only if the file ended first
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public long readFully(FileHandle3 file, long offset, MemorySegment into) throws IOException, InterruptedException {
        return readFully(file, offset, into, limits(file).preferredReadSize());
    }

    /**
     * Reads {@code into.byteSize()} bytes from {@code offset} with READs of at most {@code maxPerCall} bytes (and at
     * most the server's {@code rtmax}).
     *
     * @param file the regular file's handle
     * @param offset the byte offset in the file, not negative
     * @param into where the data goes; filled from its start
     * @param maxPerCall the most bytes one READ asks for, positive
     * @return the bytes read: less than asked for only if the file ended first
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
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
     * @param file the regular file's handle
     * @param offset the byte offset in the file, not negative
     * @param data the bytes to write; over RDMA the server reads them from this memory while the call runs
     * @param stable how durable the server must make the data before answering
     * @return the result; the server may write fewer bytes than given ({@link WriteResult#count})
     * @throws IllegalArgumentException if {@code data} is larger than the server's {@code wtmax}: no WRITE is sent
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
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
        return call(
                        Nfs3.PROC_WRITE,
                        Nfs3Xdr.write(file, offset, stable, data),
                        ReplyReader.of(Nfs3ResultsXdr::writeResults))
                .orThrow("WRITE " + data.byteSize() + " bytes at " + offset);
    }

    /**
     * Writes all of {@code data} at {@code offset} with WRITEs of the server's preferred size ({@code wtpref}, at most
     * {@code wtmax}), one after another; a WRITE that writes less than it carried is followed by one for the rest.
     *
     * @param file the regular file's handle
     * @param offset the byte offset in the file, not negative
     * @param data the bytes to write
     * @param stable the stability each WRITE asks for
     * @return the total; unless {@link WriteFullyResult#committed} is FILE_SYNC, COMMIT makes the data durable. For
     *         empty {@code data} nothing is sent (0 calls, FILE_SYNC, verifier 0)
     * @throws IOException if a WRITE writes nothing (no progress), or the write verifier changed between WRITEs
     *                     when one of them was UNSTABLE (the server restarted and may have lost that data: write it
     *                     again); the bytes before the failing call may have been written
     * @throws InterruptedException if interrupted while waiting for a reply
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

    /**
     * SETATTR (RFC 1813 section 3.3.2); {@code guard}, if not null, is the ctime the object must still have.
     *
     * @param object the file's handle
     * @param attributes the attributes to set; unset fields stay as they are
     * @param guard the ctime the object must still have, or null for no check (NFS3ERR_NOT_SYNC when it differs)
     * @return the object's attributes before and after, as far as the server sent them
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public WccData setattr(FileHandle3 object, Sattr3 attributes, NfsTime3 guard)
            throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_SETATTR,
                        Nfs3Xdr.setattr(object, attributes, guard),
                        ReplyReader.of(Nfs3ResultsXdr::wccResults))
                .orThrow("SETATTR " + object);
    }

    /**
     * ACCESS (RFC 1813 section 3.3.4): which of the {@code Nfs3.ACCESS_*} bits in {@code access} the caller has.
     *
     * @param object the file's handle
     * @param access the {@code Nfs3.ACCESS_*} bits to check, OR'ed together
     * @return the subset of {@code access} the server grants
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public int access(FileHandle3 object, int access) throws IOException, InterruptedException {
        return call(Nfs3.PROC_ACCESS, Nfs3Xdr.access(object, access), ReplyReader.of(Nfs3ResultsXdr::accessResults))
                .orThrow("ACCESS " + object);
    }

    /**
     * READLINK (RFC 1813 section 3.3.5).
     *
     * @param symlink the symbolic link's handle
     * @return the link's target, decoded as UTF-8
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public String readlink(FileHandle3 symlink) throws IOException, InterruptedException {
        return call(Nfs3.PROC_READLINK, symlink::encodeTo, ReplyReader.of(Nfs3ResultsXdr::readlinkResults))
                .orThrow("READLINK " + symlink);
    }

    /**
     * FSSTAT (RFC 1813 section 3.3.18).
     *
     * @param fsroot a handle in the file system, normally its root
     * @return the space and file counts
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public FsStat fsstat(FileHandle3 fsroot) throws IOException, InterruptedException {
        return call(Nfs3.PROC_FSSTAT, fsroot::encodeTo, ReplyReader.of(Nfs3ResultsXdr::fsstatResults))
                .orThrow("FSSTAT " + fsroot);
    }

    /**
     * PATHCONF (RFC 1813 section 3.3.20).
     *
     * @param object a handle in the file system
     * @return the POSIX limits
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public PathConf pathconf(FileHandle3 object) throws IOException, InterruptedException {
        return call(Nfs3.PROC_PATHCONF, object::encodeTo, ReplyReader.of(Nfs3ResultsXdr::pathconfResults))
                .orThrow("PATHCONF " + object);
    }

    /**
     * COMMIT of {@code count} bytes from {@code offset}, 0 for up to the end of the file (RFC 1813 section 3.3.21).
     *
     * @param file the regular file's handle
     * @param offset the first byte to commit
     * @param count the bytes to commit; 0 for up to the end of the file
     * @return the file's attributes and the write verifier, to compare with the UNSTABLE WRITEs' (a different one means
     *        the server restarted: write again)
     * @throws IOException an {@link NfsException} for an error status of the server, another {@link IOException} (an
     *        {@code RpcException}) when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public CommitResult commit(FileHandle3 file, long offset, int count) throws IOException, InterruptedException {
        return call(
                        Nfs3.PROC_COMMIT,
                        Nfs3Xdr.commit(file, offset, count),
                        ReplyReader.of(Nfs3ResultsXdr::commitResults))
                .orThrow("COMMIT " + file);
    }
}
