package org.panamardma.nfs.server;

import static org.panamardma.nfs.server.Nfs3Server.MAX_IO;
import static org.panamardma.nfs.server.Nfs3Server.MAX_PATH;
import static org.panamardma.nfs.server.PermissionPolicy.requireWritable;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;
import org.panamardma.nfs.Fattr3;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3Args.CommitArgs;
import org.panamardma.nfs.Nfs3Args.ReadArgs;
import org.panamardma.nfs.Nfs3Args.WriteArgs;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.WccData;
import org.panamardma.xdr.XdrEncodable;

/**
 * The NFSv3 procedures that move a file's data (RFC 1813 sections 3.3.5 to 3.3.7, 3.3.21): READLINK, READ, WRITE
 * and COMMIT. READ and WRITE data pass through a fixed pool of native buffers ({@link IoBuffers}, leased through
 * {@link CallScope}); a write or writeback error changes the write verifier, so that clients resend what they
 * wrote UNSTABLE.
 */
final class FileDataProcedures extends ProcedureBase {
    private final WriteVerifier verifier;
    private final LongAdder bytesRead;
    private final LongAdder bytesWritten;

    FileDataProcedures(ExportFs fs, WriteVerifier verifier, LongAdder bytesRead, LongAdder bytesWritten) {
        super(fs);
        this.verifier = verifier;
        this.bytesRead = bytesRead;
        this.bytesWritten = bytesWritten;
    }

    /** {@code writeverf3}: the verifier's 8 bytes, big-endian. */
    private byte[] writeVerifierBytes() {
        return ByteBuffer.allocate(8).putLong(verifier.current()).array();
    }

    /** The buffer a READ's data is read into: at most rtmax; none for a READ that reads nothing. */
    static long readBuffer(ReadArgs a) {
        return a.offset() < 0 || a.count() == 0 ? 0 : Math.min(a.count(), MAX_IO);
    }

    /**
     * The buffer data arriving in heap memory (over TCP) is copied into for the system call; none for data in
     * native memory (over RDMA, written from where it arrived) or a WRITE that is refused anyway.
     */
    static long writeBuffer(WriteArgs a) {
        return a.data().isNative()
                        || a.count() == 0
                        || a.count() > MAX_IO
                        || a.count() > a.data().byteSize()
                ? 0
                : a.count();
    }

    /** READLINK (section 3.3.5). */
    XdrEncodable readlink(FileHandle3 fh, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(fh)) {
            if (!n.stat().isSymlink()) {
                throw new NfsError(NfsStat3.NFS3ERR_INVAL, "not a symbolic link");
            }
            byte[] target = PosixNames.readlinkat(n.fd(), "", MAX_PATH);
            Fattr3 attrs = attributes(n);
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, attrs);
                out.putOpaque(target, MAX_PATH);
            };
        }
    }

    /**
     * READ (section 3.3.6): at most {@link Nfs3Server#MAX_IO} bytes, read from the file into a buffer of the pool
     * and sent from there; the data item is DDP-eligible (RFC 8267 section 4.1), so over RPC-over-RDMA it leaves by
     * RDMA Write from that buffer.
     */
    XdrEncodable read(ReadArgs a, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(a.file())) {
            Stat s = n.stat();
            requireRegular(s);
            if (!Permissions.mayRead(c, n)) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not read");
            }
            int count = (int) Math.min(a.count(), MAX_IO);
            if (a.offset() < 0 || count == 0) {
                // an offset beyond 2^63 is beyond any file's end
                Fattr3 attrs = attributes(n);
                boolean eof = a.offset() < 0 || attrs == null || a.offset() >= attrs.size();
                return out -> {
                    ok(out);
                    Fattr3.encodePostOp(out, attrs);
                    out.putInt(0).putBoolean(eof).putInt(0);
                };
            }
            try (OpenFiles.Lease file = fs.ioFile(n, OpenFiles.Access.READ)) {
                int fd = file.fd();
                IoBuffers.Lease lease = CallScope.lease();
                MemorySegment buffer = lease.segment();
                long done = 0;
                while (done < count) {
                    long r = Posix.pread(fd, buffer.asSlice(done, count - done), a.offset() + done);
                    if (r == 0) {
                        break;
                    }
                    done += r;
                }
                Stat after = Posix.fstat(fd);
                boolean eof = a.offset() + done >= after.size();
                bytesRead.add(done);
                MemorySegment data;
                if (CallScope.zeroCopy()) {
                    CallScope.holdUntilSent(lease); // sent from the buffer, which the transport gives back after
                    data = buffer.asSlice(0, done);
                } else {
                    data = MemorySegment.ofArray(buffer.asSlice(0, done).toArray(ValueLayout.JAVA_BYTE));
                }
                Fattr3 attrs = attributes(after);
                int n32 = (int) done;
                return out -> {
                    ok(out);
                    Fattr3.encodePostOp(out, attrs);
                    out.putInt(n32).putBoolean(eof);
                    out.putEligibleOpaque(data, MAX_IO);
                };
            }
        }
    }

    /** WRITE (section 3.3.7): UNSTABLE goes to the page cache, DATA_SYNC and FILE_SYNC to the disk first. */
    XdrEncodable write(WriteArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        if (a.count() > a.data().byteSize()) {
            throw new NfsError(
                    NfsStat3.NFS3ERR_INVAL,
                    "count " + a.count() + " but " + a.data().byteSize() + " bytes of data");
        }
        if (a.count() > MAX_IO) {
            throw new NfsError(NfsStat3.NFS3ERR_INVAL, "WRITE of " + a.count() + " bytes beyond wtmax " + MAX_IO);
        }
        if (a.offset() < 0 || a.offset() + a.count() < 0) {
            throw new NfsError(NfsStat3.NFS3ERR_FBIG, "WRITE beyond 2^63");
        }
        try (ExportFs.Node n = fs.resolve(a.file())) {
            Stat before = n.stat();
            requireRegular(before);
            if (!Permissions.mayWrite(c, n)) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not write");
            }
            if (before.writeProtected()) {
                // what an open for writing would refuse, refused also when a descriptor opened before is cached
                throw new NfsError(NfsStat3.NFS3ERR_PERM, "the file is immutable or append-only");
            }
            int count = (int) a.count();
            Stat after;
            try (OpenFiles.Lease file = fs.ioFile(n, OpenFiles.Access.WRITE)) {
                int fd = file.fd();
                MemorySegment data = a.data().asSlice(0, count);
                if (writeBuffer(a) > 0) {
                    // heap data (TCP) into native memory the system call can take
                    IoBuffers.Lease lease = CallScope.lease();
                    MemorySegment.copy(data, 0, lease.segment(), 0, count);
                    data = lease.segment().asSlice(0, count);
                }
                // a stable WRITE syncs its own range, in the same system call, as knfsd's nfsd_vfs_write does:
                // FILE_SYNC the data and all the file's metadata, DATA_SYNC the data and what is needed to read it
                // back (RFC 1813 section 3.3.7; knfsd synced only the data for FILE_SYNC from "NFSD: Use
                // vfs_iocb_iter_write()" until its fix in late 2025, trixie's 6.12 included); not the file's other
                // dirty pages, which COMMIT is for
                int sync = switch (a.stable()) {
                    case FILE_SYNC -> Posix.RWF_SYNC;
                    case DATA_SYNC -> Posix.RWF_DSYNC;
                    case UNSTABLE -> 0;
                };
                try {
                    long done = 0;
                    while (done < count) {
                        done += Posix.pwritev2(fd, data.asSlice(done), a.offset() + done, sync);
                    }
                } catch (PosixException e) {
                    verifier.failed(e); // data acknowledged UNSTABLE before may be lost: clients must resend it
                    throw e;
                }
                after = Posix.fstat(fd);
                bytesWritten.add(count);
            }
            WccData w = wcc(before, attributes(after));
            StableHow committed = a.stable();
            byte[] verf = writeVerifierBytes();
            return out -> {
                ok(out);
                w.encodeTo(out);
                out.putInt(count).putEnum(committed.code()).putFixedOpaque(verf);
            };
        }
    }

    /** COMMIT (section 3.3.21): fsync of the whole file, whatever range is asked for. */
    XdrEncodable commit(CommitArgs a, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(a.file())) {
            Stat before = n.stat();
            requireRegular(before);
            if (!c.owns(before) && !Permissions.may(n, Permissions.WRITE) && !Permissions.may(n, Permissions.READ)) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not commit");
            }
            Stat after;
            try (OpenFiles.Lease file = fs.ioFile(n, OpenFiles.Access.READ)) {
                int fd = file.fd();
                try {
                    Posix.fsync(fd);
                } catch (PosixException e) {
                    verifier.failed(e); // a writeback error: what was written UNSTABLE may be lost
                    throw e;
                }
                after = Posix.fstat(fd);
            }
            WccData w = wcc(before, attributes(after));
            byte[] verf = writeVerifierBytes();
            return out -> {
                ok(out);
                w.encodeTo(out);
                out.putFixedOpaque(verf);
            };
        }
    }
}
