package org.panamardma.nfs.server;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.panamardma.nfs.Fattr3;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.FileType3;
import org.panamardma.nfs.FsInfo;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.NfsTime3;
import org.panamardma.nfs.Sattr3;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.WccData;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.xdr.Xdr;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;
import org.panamardma.xdr.XdrReader;

/**
 * The NFS version 3 program (RFC 1813 section 3) over one {@link ExportFs}: every procedure, as an
 * {@link RpcDispatcher} registration any transport can serve (TCP and RPC-over-RDMA at once, see {@link NfsServer}).
 *
 * <p>What it enforces, as knfsd does:
 * <ul>
 *   <li>each procedure runs on an OS thread acting as its caller ({@link CallerThreads}: the caller's file-system
 *       ids and groups, after {@link Squashing}, and no CAP_FSETID unless root), so files are made by the caller,
 *       and the kernel checks its permissions ({@link Permissions}: ACLs included, with knfsd's two allowances:
 *       the owner may READ and WRITE its file whatever the mode, READ is allowed with execute permission) and
 *       clears set-id bits on its writes; what the server does for itself (finding a file from its handle, opening
 *       a file once it has decided the caller may) it does as itself;
 *   <li>the export's client list and options per client ({@link ExportGate}, {@link ExportClients}): a call from a
 *       port above 1023 under {@code secure} is NFS3ERR_PERM, as knfsd's {@code nfsd_setuser_and_check_port};
 *   <li>{@code sattr3} changes: mode by the owner, owner by root, group by the owner to a group it is in, times to
 *       the server's clock by anyone who may write, to a given time by the owner; the sticky bit on REMOVE and
 *       RENAME;
 *   <li>the server's limits, whatever a client asks: READ returns at most {@link #MAX_IO} bytes (FSINFO rtmax), a
 *       WRITE carrying more than {@code wtmax} is NFS3ERR_INVAL (its bytes are already in the transport's bounded
 *       call memory and are not copied), READDIR and READDIRPLUS replies are at most {@link #MAX_DIR_REPLY} bytes;
 *       READ and WRITE data pass through a fixed pool of native buffers ({@link IoBuffers}).
 * </ul>
 *
 * <p>Errors of the system calls map to {@code nfsstat3} by knfsd's table ({@link PosixException#status}); a
 * handle this server did not issue is NFS3ERR_BADHANDLE, a file that is gone NFS3ERR_STALE; arguments that do not
 * decode are GARBAGE_ARGS (the dispatcher's). The failure results carry no attributes (they are optional).
 */
public final class Nfs3Server {
    /** FSINFO rtmax and wtmax, rtpref and wtpref: 1 MiB, the largest READ and WRITE. */
    public static final int MAX_IO = 1 << 20;
    /** FSINFO dtpref, and the largest READDIR / READDIRPLUS reply this server builds. */
    public static final int MAX_DIR_REPLY = 64 << 10;
    /** The longest symbolic link target (PATH_MAX - 1). */
    static final int MAX_PATH = 4095;

    private final ExportFs fs;
    private final CallRunner runner;
    private final WriteVerifier verifier = new WriteVerifier();
    private final LongAdder[] calls = new LongAdder[22];
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder bytesWritten = new LongAdder();

    Nfs3Server(ExportFs fs, CallRunner runner) {
        this.fs = fs;
        this.runner = runner;
        for (int i = 0; i < calls.length; i++) {
            calls[i] = new LongAdder();
        }
    }

    /** @return the write verifier now (big-endian) */
    long writeVerifier() {
        return verifier.current();
    }

    /** {@code writeverf3}: the verifier's 8 bytes, big-endian. */
    private byte[] writeVerifierBytes() {
        return ByteBuffer.allocate(8).putLong(verifier.current()).array();
    }

    /** @return calls per procedure so far, and the data moved, for log lines */
    String statistics() {
        StringBuilder b = new StringBuilder();
        String[] names = {"NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE", "CREATE",
            "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR", "READDIRPLUS", "FSSTAT",
            "FSINFO", "PATHCONF", "COMMIT"};
        for (int i = 0; i < calls.length; i++) {
            long n = calls[i].sum();
            if (n > 0) {
                b.append(b.isEmpty() ? "" : " ").append(names[i]).append('=').append(n);
            }
        }
        return "calls " + (b.isEmpty() ? "none" : b) + "; read " + bytesRead.sum() + " bytes, written "
                + bytesWritten.sum() + " bytes";
    }

    // ---- registration -----------------------------------------------------------------------------------------

    /** What a failed procedure's results hold besides the status (RFC 1813: the {@code resfail} arms). */
    private enum Shape {
        NONE(0), ATTR(1), WCC(2), ATTR_WCC(3), WCC2(4);

        final int falses;

        Shape(int falses) {
            this.falses = falses;
        }
    }

    @FunctionalInterface
    private interface Body<A> {
        XdrEncodable run(A args, Caller caller) throws NfsError, PosixException, InterruptedException;
    }

    /** Registers the NFS program, version 3, into {@code builder}. */
    public void register(RpcDispatcher.Builder builder) {
        builder.register(Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.PROC_NULL, in -> Boolean.TRUE, (a, call) -> {
            calls[Nfs3.PROC_NULL].increment();
            return XdrEncodable.VOID;
        });
        procedure(builder, Nfs3.PROC_GETATTR, FileHandle3::decode, Shape.NONE, this::getattr);
        procedure(builder, Nfs3.PROC_SETATTR, SetattrArgs::decode, Shape.WCC, this::setattr);
        procedure(builder, Nfs3.PROC_LOOKUP, DirOp::decode, Shape.ATTR, this::lookup);
        procedure(builder, Nfs3.PROC_ACCESS, AccessArgs::decode, Shape.ATTR, this::access);
        procedure(builder, Nfs3.PROC_READLINK, FileHandle3::decode, Shape.ATTR, this::readlink);
        procedure(builder, Nfs3.PROC_READ, ReadArgs::decode, Shape.ATTR, ReadArgs::bufferBytes, this::read);
        procedure(builder, Nfs3.PROC_WRITE, WriteArgs::decode, Shape.WCC, WriteArgs::bufferBytes, this::write);
        procedure(builder, Nfs3.PROC_CREATE, CreateArgs::decode, Shape.WCC, this::create);
        procedure(builder, Nfs3.PROC_MKDIR, MkdirArgs::decode, Shape.WCC, this::mkdir);
        procedure(builder, Nfs3.PROC_SYMLINK, SymlinkArgs::decode, Shape.WCC, this::symlink);
        procedure(builder, Nfs3.PROC_MKNOD, MknodArgs::decode, Shape.WCC, this::mknod);
        procedure(builder, Nfs3.PROC_REMOVE, DirOp::decode, Shape.WCC, (a, c) -> remove(a, c, false));
        procedure(builder, Nfs3.PROC_RMDIR, DirOp::decode, Shape.WCC, (a, c) -> remove(a, c, true));
        procedure(builder, Nfs3.PROC_RENAME, RenameArgs::decode, Shape.WCC2, this::rename);
        procedure(builder, Nfs3.PROC_LINK, LinkArgs::decode, Shape.ATTR_WCC, this::link);
        procedure(builder, Nfs3.PROC_READDIR, ReaddirArgs::decodeReaddir, Shape.ATTR, this::readdir);
        procedure(builder, Nfs3.PROC_READDIRPLUS, ReaddirArgs::decodeReaddirplus, Shape.ATTR, this::readdir);
        procedure(builder, Nfs3.PROC_FSSTAT, FileHandle3::decode, Shape.ATTR, this::fsstat);
        procedure(builder, Nfs3.PROC_FSINFO, FileHandle3::decode, Shape.ATTR, this::fsinfo);
        procedure(builder, Nfs3.PROC_PATHCONF, FileHandle3::decode, Shape.ATTR, this::pathconf);
        procedure(builder, Nfs3.PROC_COMMIT, CommitArgs::decode, Shape.WCC, this::commit);
    }

    private <A> void procedure(RpcDispatcher.Builder builder, int number, XdrReader<A> arguments, Shape failure,
                               Body<A> body) {
        procedure(builder, number, arguments, failure, a -> 0, body);
    }

    /**
     * Registers a procedure, run by the {@link CallRunner} (the client's checks, its caller, the thread acting as
     * it); {@code bufferBytes} says how large a data buffer it needs ({@link CallScope#lease()}).
     */
    private <A> void procedure(RpcDispatcher.Builder builder, int number, XdrReader<A> arguments, Shape failure,
                               java.util.function.ToLongFunction<A> bufferBytes, Body<A> body) {
        builder.register(Nfs3.PROGRAM, Nfs3.VERSION, number, arguments, (A args, org.panamardma.oncrpc.RpcCall call)
                -> {
            calls[number].increment();
            return runner.run(number, args, call, bufferBytes, body::run, status -> failure(status, failure));
        });
    }

    private static XdrEncodable failure(NfsStat3 status, Shape shape) {
        return out -> {
            out.putInt(status.code());
            for (int i = 0; i < shape.falses; i++) {
                out.putBoolean(false);
            }
        };
    }

    private static void ok(XdrEncoder out) {
        out.putInt(NfsStat3.NFS3_OK.code());
    }

    private Fattr3 attributes(Stat s) {
        return s == null ? null : s.toFattr3(fs.fsid());
    }

    /** Fresh attributes of {@code n}, or null if they cannot be had (post_op_attr is optional). */
    private Fattr3 attributes(ExportFs.Node n) {
        try {
            return attributes(fs.stat(n));
        } catch (PosixException e) {
            return null;
        }
    }

    private static WccData wcc(Stat before, Fattr3 after) {
        return new WccData(before == null ? null : before.toWccAttr(), after);
    }

    private static void requireWritable(Caller c) throws NfsError {
        if (c.options().readOnly()) {
            throw new NfsError(NfsStat3.NFS3ERR_ROFS, "read-only export");
        }
    }

    private static void requireDirectory(ExportFs.Node n) throws NfsError {
        if (!n.stat().isDirectory()) {
            throw new NfsError(NfsStat3.NFS3ERR_NOTDIR, "not a directory");
        }
    }

    private static void requireRegular(Stat s) throws NfsError {
        if (s.isDirectory()) {
            throw new NfsError(NfsStat3.NFS3ERR_ISDIR, "a directory");
        }
        if (!s.isRegular()) {
            throw new NfsError(NfsStat3.NFS3ERR_INVAL, "not a regular file");
        }
    }

    /** Write and search permission on a directory, to change its entries. */
    private static void requireModifiable(Caller c, ExportFs.Node dir) throws NfsError, PosixException {
        if (!Permissions.mayModifyEntries(dir)) {
            throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not change the entries of the directory");
        }
    }

    /** Whether the acting identity may write the entry {@code name} of {@code dir}. */
    private boolean mayWriteEntry(ExportFs.Node dir, String name) throws NfsError, PosixException {
        try (ExportFs.Node entry = fs.lookup(dir, name)) {
            return Permissions.may(entry, Permissions.WRITE);
        }
    }

    /**
     * For a {@code sync} export (the default), commits the metadata the procedure changed before it replies, as
     * knfsd's {@code commit_metadata} after a create, remove, rename, link or setattr: a reply tells the client the
     * change is durable (a server crash after it must not lose a file the client was told exists).
     */
    private void commitMetadata(Caller c, ExportFs.Node... changed) throws PosixException {
        if (!c.options().sync()) {
            return;
        }
        for (int i = 0; i < changed.length; i++) {
            boolean again = false;
            for (int j = 0; j < i; j++) {
                again |= changed[j].stat().ino() == changed[i].stat().ino();
            }
            if (!again) {
                fs.commit(changed[i]);
            }
        }
    }

    /** The sticky bit: in such a directory only the owner of an entry, of the directory, or root removes it. */
    private static void requireStickyAllows(Caller c, Stat dir, Stat entry) throws NfsError {
        if ((dir.mode() & 01000) != 0 && !c.isRoot() && !c.owns(entry) && !c.owns(dir)) {
            throw new NfsError(NfsStat3.NFS3ERR_ACCES, "sticky directory: not the owner");
        }
    }

    // ---- arguments --------------------------------------------------------------------------------------------

    /** A {@code filename3} or {@code nfspath3} as a byte string; longer than {@code max} is GARBAGE_ARGS. */
    static String byteString(XdrDecoder in, int max) {
        return new String(in.getOpaqueBytes(max), StandardCharsets.ISO_8859_1);
    }

    /** Names longer than NAME_MAX decode (so that they are answered NFS3ERR_NAMETOOLONG), up to this. */
    private static final int NAME_DECODE_MAX = 4096;

    record DirOp(FileHandle3 dir, String name) {
        static DirOp decode(XdrDecoder in) {
            return new DirOp(FileHandle3.decode(in), byteString(in, NAME_DECODE_MAX));
        }
    }

    record SetattrArgs(FileHandle3 object, Sattr3 attributes, NfsTime3 guard) {
        static SetattrArgs decode(XdrDecoder in) {
            FileHandle3 fh = FileHandle3.decode(in);
            Sattr3 s = Sattr3.decode(in);
            NfsTime3 guard = in.getBoolean() ? NfsTime3.decode(in) : null;
            return new SetattrArgs(fh, s, guard);
        }
    }

    record AccessArgs(FileHandle3 object, int access) {
        static AccessArgs decode(XdrDecoder in) {
            return new AccessArgs(FileHandle3.decode(in), in.getInt("access"));
        }
    }

    record ReadArgs(FileHandle3 file, long offset, long count) {
        static ReadArgs decode(XdrDecoder in) {
            return new ReadArgs(FileHandle3.decode(in), in.getUnsignedHyper(), in.getUnsignedInt("count"));
        }

        /** The buffer the data is read into: at most rtmax; none for a READ that reads nothing. */
        long bufferBytes() {
            return offset < 0 || count == 0 ? 0 : Math.min(count, MAX_IO);
        }
    }

    /** WRITE3args; {@code data} is a view of the call's memory, never a copy. */
    record WriteArgs(FileHandle3 file, long offset, long count, StableHow stable, MemorySegment data) {
        static WriteArgs decode(XdrDecoder in) {
            FileHandle3 fh = FileHandle3.decode(in);
            long offset = in.getUnsignedHyper();
            long count = in.getUnsignedInt("count");
            StableHow stable = in.getEnum(StableHow::of, "stable_how");
            return new WriteArgs(fh, offset, count, stable, in.getOpaque(Integer.MAX_VALUE));
        }

        /**
         * The buffer data arriving in heap memory (over TCP) is copied into for the system call; none for data in
         * native memory (over RDMA, written from where it arrived) or a WRITE that is refused anyway.
         */
        long bufferBytes() {
            return data.isNative() || count == 0 || count > MAX_IO || count > data.byteSize() ? 0 : count;
        }
    }

    record CreateArgs(DirOp where, int mode, Sattr3 attributes, byte[] verifier) {
        static CreateArgs decode(XdrDecoder in) {
            DirOp where = DirOp.decode(in);
            long at = in.position();
            int mode = in.getEnum();
            return switch (mode) {
                case Nfs3.CREATE_UNCHECKED, Nfs3.CREATE_GUARDED -> new CreateArgs(where, mode, Sattr3.decode(in),
                        null);
                case Nfs3.CREATE_EXCLUSIVE -> new CreateArgs(where, mode, Sattr3.NONE,
                        in.getFixedOpaque(8).toArray(ValueLayout.JAVA_BYTE));
                default -> throw new XdrException(XdrException.Reason.INVALID_VALUE, at, "createmode3 " + mode);
            };
        }
    }

    record MkdirArgs(DirOp where, Sattr3 attributes) {
        static MkdirArgs decode(XdrDecoder in) {
            return new MkdirArgs(DirOp.decode(in), Sattr3.decode(in));
        }
    }

    record SymlinkArgs(DirOp where, Sattr3 attributes, String target) {
        static SymlinkArgs decode(XdrDecoder in) {
            return new SymlinkArgs(DirOp.decode(in), Sattr3.decode(in), byteString(in, MAX_PATH + 1));
        }
    }

    record MknodArgs(DirOp where, FileType3 type, Sattr3 attributes, int major, int minor) {
        static MknodArgs decode(XdrDecoder in) {
            DirOp where = DirOp.decode(in);
            FileType3 type = in.getEnum(FileType3::of, "ftype3");
            return switch (type) {
                case NF3CHR, NF3BLK -> new MknodArgs(where, type, Sattr3.decode(in), in.getInt(), in.getInt());
                case NF3SOCK, NF3FIFO -> new MknodArgs(where, type, Sattr3.decode(in), 0, 0);
                default -> new MknodArgs(where, type, Sattr3.NONE, 0, 0);
            };
        }
    }

    record RenameArgs(DirOp from, DirOp to) {
        static RenameArgs decode(XdrDecoder in) {
            return new RenameArgs(DirOp.decode(in), DirOp.decode(in));
        }
    }

    record LinkArgs(FileHandle3 file, DirOp link) {
        static LinkArgs decode(XdrDecoder in) {
            return new LinkArgs(FileHandle3.decode(in), DirOp.decode(in));
        }
    }

    record ReaddirArgs(FileHandle3 dir, long cookie, long verifier, long dirCount, long maxCount, boolean plus) {
        static ReaddirArgs decodeReaddir(XdrDecoder in) {
            FileHandle3 fh = FileHandle3.decode(in);
            long cookie = in.getUnsignedHyper();
            long verifier = in.getHyper();
            long count = in.getUnsignedInt("count");
            return new ReaddirArgs(fh, cookie, verifier, count, count, false);
        }

        static ReaddirArgs decodeReaddirplus(XdrDecoder in) {
            FileHandle3 fh = FileHandle3.decode(in);
            long cookie = in.getUnsignedHyper();
            long verifier = in.getHyper();
            return new ReaddirArgs(fh, cookie, verifier, in.getUnsignedInt("dircount"),
                    in.getUnsignedInt("maxcount"), true);
        }
    }

    record CommitArgs(FileHandle3 file, long offset, long count) {
        static CommitArgs decode(XdrDecoder in) {
            return new CommitArgs(FileHandle3.decode(in), in.getUnsignedHyper(), in.getUnsignedInt("count"));
        }
    }

    // ---- procedures -------------------------------------------------------------------------------------------

    /** GETATTR (RFC 1813 section 3.3.1). */
    private XdrEncodable getattr(FileHandle3 fh, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(fh)) {
            Fattr3 a = attributes(fs.stat(n));
            return out -> {
                ok(out);
                a.encodeTo(out);
            };
        }
    }

    /** SETATTR (section 3.3.2). */
    private XdrEncodable setattr(SetattrArgs a, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(a.object())) {
            Stat before = fs.stat(n);
            if (a.guard() != null && !Stat.time(before.ctimeSec(), before.ctimeNsec()).equals(a.guard())) {
                WccData w = wcc(before, attributes(before));
                return out -> {
                    out.putInt(NfsStat3.NFS3ERR_NOT_SYNC.code());
                    w.encodeTo(out);
                };
            }
            requireWritable(c);
            checkSetattr(c, n, before, a.attributes());
            applyAttributes(c, n, before, a.attributes());
            commitMetadata(c, n);
            WccData w = wcc(before, attributes(n));
            return out -> {
                ok(out);
                w.encodeTo(out);
            };
        }
    }

    /**
     * Who may change what (see the class comment); throws before anything is changed. The kernel checks each change
     * again as it makes it (the thread acts as the caller); checking first keeps a refused SETATTR from applying
     * half of its attributes, and answers knfsd's status codes.
     */
    private static void checkSetattr(Caller c, ExportFs.Node n, Stat s, Sattr3 a) throws NfsError, PosixException {
        boolean ownerOrRoot = c.isRoot() || c.owns(s);
        if (a.size() != null) {
            requireRegular(s);
            if (!Permissions.mayWrite(c, n)) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not truncate");
            }
        }
        if (a.mode() != null) {
            if (!ownerOrRoot) {
                throw new NfsError(NfsStat3.NFS3ERR_PERM, c + " may not change the mode");
            }
            if (s.isSymlink()) {
                throw new NfsError(NfsStat3.NFS3ERR_NOTSUPP, "the mode of a symbolic link");
            }
        }
        if (a.uid() != null && a.uid() != s.uid() && !c.isRoot()) {
            throw new NfsError(NfsStat3.NFS3ERR_PERM, c + " may not give the file away");
        }
        if (a.gid() != null && a.gid() != s.gid() && !c.isRoot() && !(c.owns(s) && c.inGroup(a.gid()))) {
            throw new NfsError(NfsStat3.NFS3ERR_PERM, c + " may not change the group to " + a.gid());
        }
        for (Sattr3.SetTime t : List.of(a.atime(), a.mtime())) {
            if (t.how() == Sattr3.SetTime.SET_TO_SERVER_TIME && !ownerOrRoot
                    && !Permissions.may(n, Permissions.WRITE)) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not touch the file");
            }
            if (t.how() == Sattr3.SetTime.SET_TO_CLIENT_TIME && !ownerOrRoot) {
                throw new NfsError(NfsStat3.NFS3ERR_PERM, c + " may not set the file's times");
            }
        }
    }

    /**
     * Applies {@code a} to {@code n} as the caller: size, then owner (which clears set-id bits), then mode (without
     * set-id bits for a shared identity; the kernel drops set-group-id for a caller outside the file's group), then
     * times. The file is opened for the truncate by the server (it has checked the caller may, knfsd's owner
     * allowance included); the truncate itself runs as the caller, so the kernel clears set-id bits.
     */
    private void applyAttributes(Caller c, ExportFs.Node n, Stat s, Sattr3 a) throws PosixException {
        if (a.size() != null) {
            if (a.size() < 0) {
                throw new PosixException(PosixException.EFBIG, "ftruncate", "size beyond 2^63");
            }
            int fd = fs.openForIo(n, Posix.O_WRONLY);
            try {
                Posix.ftruncate(fd, a.size());
            } finally {
                Posix.close(fd);
            }
        }
        if (a.uid() != null || a.gid() != null) {
            Posix.fchownat(n.fd(), "", a.uid() == null ? -1 : a.uid(), a.gid() == null ? -1 : a.gid(),
                    Posix.AT_EMPTY_PATH);
        }
        if (a.mode() != null) {
            Posix.fchmodat(Posix.AT_FDCWD, Posix.procPath(n.fd()), c.permittedMode(a.mode()) & 07777, 0);
        }
        if (a.atime().how() != Sattr3.SetTime.HOW_DONT_CHANGE || a.mtime().how() != Sattr3.SetTime.HOW_DONT_CHANGE) {
            long[] at = utime(a.atime());
            long[] mt = utime(a.mtime());
            if (s.isSymlink()) {
                throw new PosixException(PosixException.EOPNOTSUPP, "utimensat", "a symbolic link");
            }
            Posix.utimensat(Posix.AT_FDCWD, Posix.procPath(n.fd()), at[0], at[1], mt[0], mt[1], 0);
        }
    }

    private static long[] utime(Sattr3.SetTime t) {
        return switch (t.how()) {
            case Sattr3.SetTime.SET_TO_SERVER_TIME -> new long[] {0, Posix.UTIME_NOW};
            case Sattr3.SetTime.SET_TO_CLIENT_TIME -> new long[] {t.time().seconds(), t.time().nanoseconds()};
            default -> new long[] {0, Posix.UTIME_OMIT};
        };
    }

    /** LOOKUP (section 3.3.3). */
    private XdrEncodable lookup(DirOp a, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node dir = fs.resolve(a.dir())) {
            requireDirectory(dir);
            if (!Permissions.may(dir, Permissions.EXECUTE)) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not search the directory");
            }
            try (ExportFs.Node child = fs.lookup(dir, a.name())) {
                FileHandle3 handle = fs.handleOf(child);
                Fattr3 childAttributes = attributes(child.stat());
                Fattr3 dirAttributes = attributes(dir);
                return out -> {
                    ok(out);
                    handle.encodeTo(out);
                    Fattr3.encodePostOp(out, childAttributes);
                    Fattr3.encodePostOp(out, dirAttributes);
                };
            }
        }
    }

    /**
     * ACCESS (section 3.3.4): the asked-for bits the caller has, as the kernel decides them for it (knfsd's
     * {@code nfsd_access}: no owner allowance here, so that the client sees the file's real permissions).
     */
    private XdrEncodable access(AccessArgs a, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(a.object())) {
            Stat s = fs.stat(n);
            int granted = 0;
            boolean writable = !c.options().readOnly();
            if (s.isDirectory()) {
                if (Permissions.may(n, Permissions.READ)) {
                    granted |= Nfs3.ACCESS_READ;
                }
                if (Permissions.may(n, Permissions.EXECUTE)) {
                    granted |= Nfs3.ACCESS_LOOKUP;
                }
                if (writable && Permissions.mayModifyEntries(n)) {
                    granted |= Nfs3.ACCESS_MODIFY | Nfs3.ACCESS_EXTEND | Nfs3.ACCESS_DELETE;
                }
            } else {
                if (Permissions.may(n, Permissions.READ)) {
                    granted |= Nfs3.ACCESS_READ;
                }
                if (writable && Permissions.may(n, Permissions.WRITE)) {
                    granted |= Nfs3.ACCESS_MODIFY | Nfs3.ACCESS_EXTEND;
                }
                if (Permissions.may(n, Permissions.EXECUTE)) {
                    granted |= Nfs3.ACCESS_EXECUTE;
                }
            }
            int answer = granted & a.access();
            Fattr3 attrs = attributes(s);
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, attrs);
                out.putInt(answer);
            };
        }
    }

    /** READLINK (section 3.3.5). */
    private XdrEncodable readlink(FileHandle3 fh, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(fh)) {
            if (!n.stat().isSymlink()) {
                throw new NfsError(NfsStat3.NFS3ERR_INVAL, "not a symbolic link");
            }
            byte[] target = Posix.readlinkat(n.fd(), "", MAX_PATH);
            Fattr3 attrs = attributes(n);
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, attrs);
                out.putOpaque(target, MAX_PATH);
            };
        }
    }

    /**
     * READ (section 3.3.6): at most {@link #MAX_IO} bytes, read from the file into a buffer of the pool and sent
     * from there; the data item is DDP-eligible (RFC 8267 section 4.1), so over RPC-over-RDMA it leaves by RDMA
     * Write from that buffer.
     */
    private XdrEncodable read(ReadArgs a, Caller c) throws NfsError, PosixException {
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
            int fd = fs.openForIo(n, Posix.O_RDONLY);
            try {
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
            } finally {
                Posix.close(fd);
            }
        }
    }

    /** WRITE (section 3.3.7): UNSTABLE goes to the page cache, DATA_SYNC and FILE_SYNC to the disk first. */
    private XdrEncodable write(WriteArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        if (a.count() > a.data().byteSize()) {
            throw new NfsError(NfsStat3.NFS3ERR_INVAL, "count " + a.count() + " but " + a.data().byteSize()
                    + " bytes of data");
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
            int count = (int) a.count();
            int fd = fs.openForIo(n, Posix.O_WRONLY);
            Stat after;
            try {
                MemorySegment data = a.data().asSlice(0, count);
                if (a.bufferBytes() > 0) {
                    // heap data (TCP) into native memory the system call can take
                    IoBuffers.Lease lease = CallScope.lease();
                    MemorySegment.copy(data, 0, lease.segment(), 0, count);
                    data = lease.segment().asSlice(0, count);
                }
                try {
                    long done = 0;
                    while (done < count) {
                        done += Posix.pwrite(fd, data.asSlice(done), a.offset() + done);
                    }
                    if (a.stable() == StableHow.FILE_SYNC) {
                        Posix.fsync(fd);
                    } else if (a.stable() == StableHow.DATA_SYNC) {
                        Posix.fdatasync(fd);
                    }
                } catch (PosixException e) {
                    verifier.failed(e); // data acknowledged UNSTABLE before may be lost: clients must resend it
                    throw e;
                }
                after = Posix.fstat(fd);
                bytesWritten.add(count);
            } finally {
                Posix.close(fd);
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

    /** The results of CREATE, MKDIR, SYMLINK and MKNOD: the new file's handle and attributes, the directory's wcc. */
    private XdrEncodable created(ExportFs.Node dir, Stat dirBefore, ExportFs.Node child) {
        FileHandle3 handle = fs.handleOf(child);
        Fattr3 attrs = attributes(child);
        WccData w = wcc(dirBefore, attributes(dir));
        return out -> {
            ok(out);
            out.putBoolean(true);
            handle.encodeTo(out);
            Fattr3.encodePostOp(out, attrs);
            w.encodeTo(out);
        };
    }

    /**
     * Sets what CREATE, MKDIR, SYMLINK and MKNOD were given besides the mode, which the creation itself applied (the
     * thread's umask is 0; the client applied its own): the owner and group only for root, as knfsd's
     * {@code nfsd_create_setattr} (a caller other than root made the file its own, in the group the kernel chose:
     * its own, or the directory's when that is set-group-id, and may not give it away), then size and times.
     */
    private void initialize(Caller c, ExportFs.Node child, Sattr3 a) throws PosixException {
        if (c.isRoot() && (a.uid() != null || a.gid() != null)) {
            Posix.fchownat(child.fd(), "", a.uid() == null ? -1 : a.uid(), a.gid() == null ? -1 : a.gid(),
                    Posix.AT_EMPTY_PATH);
        }
        Sattr3 rest = new Sattr3(null, null, null, a.size(), a.atime(), a.mtime());
        if (rest.size() != null || rest.atime().how() != 0 || rest.mtime().how() != 0) {
            if (child.stat().isSymlink()) {
                return;
            }
            applyAttributes(c, child, child.stat(), rest);
        }
    }

    /** CREATE (section 3.3.8): UNCHECKED, GUARDED, and EXCLUSIVE with the verifier kept in atime and mtime. */
    private XdrEncodable create(CreateArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        try (ExportFs.Node dir = fs.resolve(a.where().dir())) {
            requireDirectory(dir);
            String name = a.where().name();
            Names.checkNew(name);
            ExportFs.checkPathLength(dir, name);
            requireModifiable(c, dir);
            Stat dirBefore = fs.stat(dir);
            Integer mode = a.attributes().mode();
            int initial = a.mode() == Nfs3.CREATE_EXCLUSIVE ? 0600
                    : (mode == null ? 0644 : c.permittedMode(mode) & 07777);
            int fd;
            try {
                fd = Posix.openat2(dir.fd(), name, Posix.O_CREAT | Posix.O_EXCL | Posix.O_RDONLY | Posix.O_NOFOLLOW,
                        initial, Posix.RESOLVE_CONFINED);
            } catch (PosixException e) {
                if (e.errno() != PosixException.EEXIST || a.mode() == Nfs3.CREATE_GUARDED) {
                    throw e;
                }
                return createExisting(dir, dirBefore, a, c);
            }
            Posix.close(fd);
            try (ExportFs.Node child = fs.lookup(dir, name)) {
                if (a.mode() == Nfs3.CREATE_EXCLUSIVE) {
                    ByteBuffer v = ByteBuffer.wrap(a.verifier());
                    Posix.utimensat(Posix.AT_FDCWD, Posix.procPath(child.fd()), Integer.toUnsignedLong(v.getInt()), 0,
                            Integer.toUnsignedLong(v.getInt()), 0, 0);
                } else {
                    initialize(c, child, a.attributes());
                }
                commitMetadata(c, child, dir);
                return created(dir, dirBefore, child);
            }
        }
    }

    /** CREATE of a name that exists: EXCLUSIVE succeeds for the same verifier (a retransmission), UNCHECKED always. */
    private XdrEncodable createExisting(ExportFs.Node dir, Stat dirBefore, CreateArgs a, Caller c)
            throws NfsError, PosixException {
        try (ExportFs.Node existing = fs.lookup(dir, a.where().name())) {
            Stat s = existing.stat();
            if (!s.isRegular()) {
                throw new NfsError(NfsStat3.NFS3ERR_EXIST, "exists and is not a regular file");
            }
            if (a.mode() == Nfs3.CREATE_EXCLUSIVE) {
                ByteBuffer v = ByteBuffer.wrap(a.verifier());
                if (s.atimeSec() != Integer.toUnsignedLong(v.getInt())
                        || s.mtimeSec() != Integer.toUnsignedLong(v.getInt())) {
                    throw new NfsError(NfsStat3.NFS3ERR_EXIST, "exists, created with another verifier");
                }
                return created(dir, dirBefore, existing);
            }
            if (a.attributes().size() != null) {
                Sattr3 size = Sattr3.NONE.withSize(a.attributes().size());
                checkSetattr(c, existing, s, size);
                applyAttributes(c, existing, s, size);
                commitMetadata(c, existing);
            }
            return created(dir, dirBefore, existing);
        }
    }

    /** MKDIR (section 3.3.9). */
    private XdrEncodable mkdir(MkdirArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        try (ExportFs.Node dir = fs.resolve(a.where().dir())) {
            requireDirectory(dir);
            String name = a.where().name();
            Names.checkNew(name);
            ExportFs.checkPathLength(dir, name);
            requireModifiable(c, dir);
            Stat dirBefore = fs.stat(dir);
            Integer mode = a.attributes().mode();
            // mkdir(2) keeps the permission and sticky bits; a directory below a set-group-id directory becomes
            // set-group-id by the kernel (and takes its group)
            Posix.mkdirat(dir.fd(), name, mode == null ? 0755 : c.permittedMode(mode) & 07777);
            try (ExportFs.Node child = fs.lookup(dir, name)) {
                initialize(c, child, a.attributes());
                commitMetadata(c, child, dir);
                return created(dir, dirBefore, child);
            }
        }
    }

    /** SYMLINK (section 3.3.10); the target is stored as given: the server never follows it, clients do. */
    private XdrEncodable symlink(SymlinkArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        if (a.target().isEmpty() || a.target().indexOf('\0') >= 0) {
            throw new NfsError(NfsStat3.NFS3ERR_INVAL, "symbolic link target empty or holding a NUL");
        }
        if (a.target().length() > MAX_PATH) {
            throw new NfsError(NfsStat3.NFS3ERR_NAMETOOLONG, "target of " + a.target().length() + " bytes");
        }
        try (ExportFs.Node dir = fs.resolve(a.where().dir())) {
            requireDirectory(dir);
            String name = a.where().name();
            Names.checkNew(name);
            ExportFs.checkPathLength(dir, name);
            requireModifiable(c, dir);
            Stat dirBefore = fs.stat(dir);
            Posix.symlinkat(a.target(), dir.fd(), name);
            try (ExportFs.Node child = fs.lookup(dir, name)) {
                initialize(c, child, Sattr3.NONE.withOwner(a.attributes().uid(), a.attributes().gid()));
                commitMetadata(c, dir); // the directory's fsync commits the new link's inode with it (journal)
                return created(dir, dirBefore, child);
            }
        }
    }

    /** MKNOD (section 3.3.11): FIFOs and sockets for anyone who may create; devices for root only. */
    private XdrEncodable mknod(MknodArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        int type = switch (a.type()) {
            case NF3FIFO -> Posix.S_IFIFO;
            case NF3SOCK -> Posix.S_IFSOCK;
            case NF3CHR -> Posix.S_IFCHR;
            case NF3BLK -> Posix.S_IFBLK;
            default -> throw new NfsError(NfsStat3.NFS3ERR_BADTYPE, "MKNOD of " + a.type());
        };
        if ((type == Posix.S_IFCHR || type == Posix.S_IFBLK) && !c.isRoot()) {
            throw new NfsError(NfsStat3.NFS3ERR_PERM, c + " may not create device files");
        }
        try (ExportFs.Node dir = fs.resolve(a.where().dir())) {
            requireDirectory(dir);
            String name = a.where().name();
            Names.checkNew(name);
            ExportFs.checkPathLength(dir, name);
            requireModifiable(c, dir);
            Stat dirBefore = fs.stat(dir);
            Integer mode = a.attributes().mode();
            long dev = makedev(a.major(), a.minor());
            Posix.mknodat(dir.fd(), name, type | (c.permittedMode(mode == null ? 0644 : mode) & 07777), dev);
            try (ExportFs.Node child = fs.lookup(dir, name)) {
                initialize(c, child, a.attributes());
                commitMetadata(c, dir);
                return created(dir, dirBefore, child);
            }
        }
    }

    /** glibc's {@code makedev}. */
    static long makedev(int major, int minor) {
        long ma = Integer.toUnsignedLong(major);
        long mi = Integer.toUnsignedLong(minor);
        return ((ma & 0xfffff000L) << 32) | ((ma & 0xfffL) << 8) | ((mi & 0xffffff00L) << 12) | (mi & 0xffL);
    }

    /** REMOVE (section 3.3.12) and RMDIR (section 3.3.13). */
    private XdrEncodable remove(DirOp a, Caller c, boolean directory) throws NfsError, PosixException {
        requireWritable(c);
        try (ExportFs.Node dir = fs.resolve(a.dir())) {
            requireDirectory(dir);
            String name = a.name();
            Names.check(name);
            if (name.equals(".")) {
                throw new NfsError(NfsStat3.NFS3ERR_INVAL, "removing \".\"");
            }
            if (name.equals("..")) {
                throw new NfsError(directory ? NfsStat3.NFS3ERR_NOTEMPTY : NfsStat3.NFS3ERR_INVAL, "removing \"..\"");
            }
            requireModifiable(c, dir);
            Stat dirBefore = fs.stat(dir);
            Stat target = fs.statAt(dir, name);
            requireStickyAllows(c, dirBefore, target);
            if (directory && !target.isDirectory()) {
                throw new NfsError(NfsStat3.NFS3ERR_NOTDIR, "RMDIR of a file that is not a directory");
            }
            Posix.unlinkat(dir.fd(), name, directory ? Posix.AT_REMOVEDIR : 0);
            fs.forget(target);
            commitMetadata(c, dir);
            WccData w = wcc(dirBefore, attributes(dir));
            return out -> {
                ok(out);
                w.encodeTo(out);
            };
        }
    }

    /** RENAME (section 3.3.14). */
    private XdrEncodable rename(RenameArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        try (ExportFs.Node from = fs.resolve(a.from().dir()); ExportFs.Node to = fs.resolve(a.to().dir())) {
            requireDirectory(from);
            requireDirectory(to);
            for (String name : List.of(a.from().name(), a.to().name())) {
                Names.check(name);
                if (name.equals(".") || name.equals("..")) {
                    throw new NfsError(NfsStat3.NFS3ERR_INVAL, "renaming \"" + name + "\"");
                }
            }
            ExportFs.checkPathLength(to, a.to().name());
            requireModifiable(c, from);
            requireModifiable(c, to);
            Stat fromBefore = fs.stat(from);
            Stat toBefore = fs.stat(to);
            Stat source = fs.statAt(from, a.from().name());
            requireStickyAllows(c, fromBefore, source);
            Stat target = null;
            try {
                target = fs.statAt(to, a.to().name());
            } catch (PosixException e) {
                if (e.errno() != PosixException.ENOENT) {
                    throw e;
                }
            }
            if (target != null) {
                requireStickyAllows(c, toBefore, target);
            }
            if (source.isDirectory() && fromBefore.ino() != toBefore.ino() && !mayWriteEntry(from, a.from().name())) {
                // moving a directory elsewhere rewrites its ".." entry
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not move the directory");
            }
            Posix.renameat(from.fd(), a.from().name(), to.fd(), a.to().name());
            fs.forget(source);
            if (target != null) {
                fs.forget(target);
            }
            commitMetadata(c, from, to);
            WccData fromWcc = wcc(fromBefore, attributes(from));
            WccData toWcc = wcc(toBefore, attributes(to));
            return out -> {
                ok(out);
                fromWcc.encodeTo(out);
                toWcc.encodeTo(out);
            };
        }
    }

    /** LINK (section 3.3.15): a hard link; like Linux's protected_hardlinks, only to a file one owns or may read and write. */
    private XdrEncodable link(LinkArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        try (ExportFs.Node file = fs.resolve(a.file()); ExportFs.Node dir = fs.resolve(a.link().dir())) {
            requireDirectory(dir);
            String name = a.link().name();
            Names.checkNew(name);
            ExportFs.checkPathLength(dir, name);
            requireModifiable(c, dir);
            Stat s = file.stat();
            if (s.isDirectory()) {
                throw new NfsError(NfsStat3.NFS3ERR_ISDIR, "hard link to a directory");
            }
            if (!c.isRoot() && !c.owns(s) && !(s.isRegular() && Permissions.may(file, Permissions.READ
                    | Permissions.WRITE))) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not link to a file it cannot read and write");
            }
            Stat dirBefore = fs.stat(dir);
            if (s.isSymlink()) {
                // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH: the server links, having checked the caller may
                CallerThreads.asServer(() -> {
                    Posix.linkat(file.fd(), "", dir.fd(), name, Posix.AT_EMPTY_PATH);
                    return null;
                });
            } else {
                Posix.linkat(Posix.AT_FDCWD, Posix.procPath(file.fd()), dir.fd(), name, Posix.AT_SYMLINK_FOLLOW);
            }
            if (s.isRegular()) {
                commitMetadata(c, file, dir); // its link count
            } else {
                commitMetadata(c, dir);
            }
            Fattr3 attrs = attributes(file);
            WccData w = wcc(dirBefore, attributes(dir));
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, attrs);
                w.encodeTo(out);
            };
        }
    }

    /** One directory entry to return. */
    private record Entry(long fileid, String name, long cookie, Fattr3 attributes, FileHandle3 handle) {
    }

    /** The cookie verifier of a directory: stable across restarts (the cookies are the file system's offsets). */
    private long cookieVerifier(Stat dir) {
        byte[] in = ByteBuffer.allocate(20).putInt(0x636f6f6b).putLong(dir.ino()).putInt(dir.generation())
                .putInt(fs.handles().exportId()).array();
        long v = ByteBuffer.wrap(fs.handles().mac(in, 0, in.length)).getLong();
        return v == 0 ? 1 : v;
    }

    /** XDR size of a name. */
    private static long nameSize(String name) {
        return Xdr.opaqueSize(name.length());
    }

    /**
     * READDIR (section 3.3.16) and READDIRPLUS (section 3.3.17). Cookies are the file system's directory offsets
     * ({@code d_off} of getdents64), which stay valid across changes of the directory and restarts of the server;
     * so the cookie verifier is fixed per directory, and a non-zero one that is not the directory's is
     * NFS3ERR_BAD_COOKIE. Replies hold as many entries as fit {@code count} (READDIR) or {@code dircount} and
     * {@code maxcount} (READDIRPLUS), each capped at {@link #MAX_DIR_REPLY}; not even one fitting is NFS3ERR_TOOSMALL.
     */
    private XdrEncodable readdir(ReaddirArgs a, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node dir = fs.resolve(a.dir())) {
            requireDirectory(dir);
            if (!Permissions.may(dir, Permissions.READ)) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not list the directory");
            }
            Stat dirStat = dir.stat();
            long verifier = cookieVerifier(dirStat);
            if (a.cookie() != 0 && a.verifier() != 0 && a.verifier() != verifier) {
                throw new NfsError(NfsStat3.NFS3ERR_BAD_COOKIE, "cookie verifier " + Long.toHexString(a.verifier()));
            }
            if (a.cookie() < 0) {
                throw new NfsError(NfsStat3.NFS3ERR_BAD_COOKIE, "cookie beyond 2^63");
            }
            long maxCount = Math.min(a.maxCount(), MAX_DIR_REPLY);
            long dirCount = a.plus() ? Math.min(a.dirCount(), MAX_DIR_REPLY) : Long.MAX_VALUE;
            Fattr3 dirAttributes = attributes(dirStat);
            // READDIR3resok: post_op_attr, cookieverf, the entries' links, the list's end and eof
            long size = 4 + Nfs3.FATTR3_SIZE + 8 + 4 + 4;
            long dirInfo = 0;
            List<Entry> entries = new ArrayList<>();
            boolean eof = false;
            int dfd = fs.openForIo(dir, Posix.O_RDONLY | Posix.O_DIRECTORY);
            try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                if (a.cookie() != 0) {
                    try {
                        Posix.lseek(dfd, a.cookie(), Posix.SEEK_SET);
                    } catch (PosixException e) {
                        throw new NfsError(NfsStat3.NFS3ERR_BAD_COOKIE, "cookie " + a.cookie());
                    }
                }
                MemorySegment buf = arena.allocate(32 << 10, 8);
                fill:
                while (true) {
                    long n = Posix.getdents64(dfd, buf);
                    if (n == 0) {
                        eof = true;
                        break;
                    }
                    for (long at = 0; at < n; ) {
                        ExportFs.Dirent e = ExportFs.Dirent.at(buf, at);
                        at += e.reclen();
                        long fileid = e.ino();
                        if (e.name().equals("..") && dir.isRoot()) {
                            fileid = dirStat.ino(); // nothing above the export shows
                        }
                        long entrySize = 4 + 8 + nameSize(e.name()) + 8;
                        Fattr3 attrs = null;
                        FileHandle3 handle = null;
                        if (a.plus()) {
                            Stat s = entryStat(dir, dfd, e.name());
                            if (s != null) {
                                attrs = attributes(s);
                                handle = entryHandle(dir, e.name(), s);
                                if (e.name().equals("..") && dir.isRoot()) {
                                    attrs = dirAttributes;
                                }
                            }
                            entrySize += 4 + (attrs == null ? 0 : Nfs3.FATTR3_SIZE) + 4
                                    + (handle == null ? 0 : Xdr.opaqueSize(handle.bytes().length));
                        }
                        long entryInfo = 8 + nameSize(e.name()) + 8;
                        if (size + entrySize > maxCount || dirInfo + entryInfo > dirCount) {
                            break fill;
                        }
                        size += entrySize;
                        dirInfo += entryInfo;
                        entries.add(new Entry(fileid, e.name(), e.off(), attrs, handle));
                    }
                }
            } finally {
                Posix.close(dfd);
            }
            if (entries.isEmpty() && !eof) {
                throw new NfsError(NfsStat3.NFS3ERR_TOOSMALL, "count " + a.maxCount() + " holds no entry");
            }
            boolean plus = a.plus();
            boolean atEnd = eof;
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, dirAttributes);
                out.putHyper(verifier);
                for (Entry e : entries) {
                    out.putBoolean(true).putUnsignedHyper(e.fileid());
                    out.putOpaque(e.name().getBytes(StandardCharsets.ISO_8859_1), Integer.MAX_VALUE);
                    out.putUnsignedHyper(e.cookie());
                    if (plus) {
                        Fattr3.encodePostOp(out, e.attributes());
                        out.putBoolean(e.handle() != null);
                        if (e.handle() != null) {
                            e.handle().encodeTo(out);
                        }
                    }
                }
                out.putBoolean(false).putBoolean(atEnd);
            };
        }
    }

    /** Status of an entry for READDIRPLUS, or null if it went away or lies on another file system. */
    private Stat entryStat(ExportFs.Node dir, int dfd, String name) {
        try {
            if (name.equals("..") && dir.isRoot()) {
                return dir.stat();
            }
            Stat s = fs.identifyAt(dfd, name);
            return fs.sameFileSystem(s) ? s : null;
        } catch (PosixException e) {
            return null;
        }
    }

    /** The handle of a listed entry; "." and ".." included. */
    private FileHandle3 entryHandle(ExportFs.Node dir, String name, Stat s) {
        if (name.equals(".") || (name.equals("..") && dir.isRoot())) {
            return fs.handleOf(dir);
        }
        if (name.equals("..")) {
            FileHandles.Decoded d = dir.handle();
            return fs.handles().encode(d.depth() - 1, s.ino(), s.generation(), d.parentHints());
        }
        return fs.childHandle(dir, name, s);
    }

    /** FSSTAT (section 3.3.18). */
    private XdrEncodable fsstat(FileHandle3 fh, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(fh)) {
            Posix.StatVfs v = Posix.fstatvfs(n.fd());
            Fattr3 attrs = attributes(n);
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, attrs);
                out.putUnsignedHyper(v.blocks() * v.blockSize()).putUnsignedHyper(v.free() * v.blockSize())
                        .putUnsignedHyper(v.available() * v.blockSize()).putUnsignedHyper(v.files())
                        .putUnsignedHyper(v.freeFiles()).putUnsignedHyper(v.availableFiles()).putInt(0);
            };
        }
    }

    /** The FSINFO answer (section 3.3.19) for attributes {@code attrs}. */
    static FsInfo fsinfo(Fattr3 attrs) {
        return new FsInfo(attrs, MAX_IO, MAX_IO, 4096, MAX_IO, MAX_IO, 4096, MAX_DIR_REPLY, Long.MAX_VALUE,
                new NfsTime3(0, 1), FsInfo.FSF3_LINK | FsInfo.FSF3_SYMLINK | FsInfo.FSF3_HOMOGENEOUS
                | FsInfo.FSF3_CANSETTIME);
    }

    private XdrEncodable fsinfo(FileHandle3 fh, Caller c) throws NfsError {
        try (ExportFs.Node n = fs.resolve(fh)) {
            FsInfo info = fsinfo(attributes(n));
            return out -> {
                ok(out);
                info.encodeTo(out);
            };
        }
    }

    /** PATHCONF (section 3.3.20). */
    private XdrEncodable pathconf(FileHandle3 fh, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(fh)) {
            Posix.StatVfs v = Posix.fstatvfs(n.fd());
            Fattr3 attrs = attributes(n);
            long nameMax = v.nameMax() > 0 ? Math.min(v.nameMax(), Names.MAX) : Names.MAX;
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, attrs);
                out.putInt(32000).putUnsignedInt(nameMax).putBoolean(true).putBoolean(true).putBoolean(false)
                        .putBoolean(true);
            };
        }
    }

    /** COMMIT (section 3.3.21): fsync of the whole file, whatever range is asked for. */
    private XdrEncodable commit(CommitArgs a, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(a.file())) {
            Stat before = n.stat();
            requireRegular(before);
            if (!c.owns(before) && !Permissions.may(n, Permissions.WRITE) && !Permissions.may(n, Permissions.READ)) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not commit");
            }
            int fd = fs.openForIo(n, Posix.O_RDONLY);
            Stat after;
            try {
                try {
                    Posix.fsync(fd);
                } catch (PosixException e) {
                    verifier.failed(e); // a writeback error: what was written UNSTABLE may be lost
                    throw e;
                }
                after = Posix.fstat(fd);
            } finally {
                Posix.close(fd);
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
