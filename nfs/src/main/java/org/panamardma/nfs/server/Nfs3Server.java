package org.panamardma.nfs.server;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Args.AccessArgs;
import org.panamardma.nfs.Nfs3Args.CommitArgs;
import org.panamardma.nfs.Nfs3Args.CreateArgs;
import org.panamardma.nfs.Nfs3Args.DirOp;
import org.panamardma.nfs.Nfs3Args.LinkArgs;
import org.panamardma.nfs.Nfs3Args.MkdirArgs;
import org.panamardma.nfs.Nfs3Args.MknodArgs;
import org.panamardma.nfs.Nfs3Args.ReadArgs;
import org.panamardma.nfs.Nfs3Args.ReaddirArgs;
import org.panamardma.nfs.Nfs3Args.RenameArgs;
import org.panamardma.nfs.Nfs3Args.SetattrArgs;
import org.panamardma.nfs.Nfs3Args.SymlinkArgs;
import org.panamardma.nfs.Nfs3Args.WriteArgs;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrReader;

/**
 * The NFS version 3 program (RFC 1813 section 3) over one {@link ExportFs}: every procedure, as an
 * {@link RpcDispatcher} registration any transport can serve (TCP and RPC-over-RDMA at once, see {@link NfsServer}).
 *
 * <p>What it enforces, as knfsd does (who may do what: {@link PermissionPolicy}):
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
    private final AttributeProcedures attributes;
    private final FileDataProcedures data;
    private final NamespaceProcedures names;
    private final DirectoryListing listing;

    Nfs3Server(ExportFs fs, CallRunner runner) {
        this.fs = fs;
        this.runner = runner;
        for (int i = 0; i < calls.length; i++) {
            calls[i] = new LongAdder();
        }
        this.attributes = new AttributeProcedures(fs);
        this.data = new FileDataProcedures(fs, verifier, bytesRead, bytesWritten);
        this.names = new NamespaceProcedures(fs, attributes);
        this.listing = new DirectoryListing(fs);
    }

    /** {@return the write verifier now (big-endian)} */
    long writeVerifier() {
        return verifier.current();
    }

    /** {@return calls per procedure so far, and the data moved, for log lines} */
    String statistics() {
        StringBuilder b = new StringBuilder();
        String[] names = {
            "NULL",
            "GETATTR",
            "SETATTR",
            "LOOKUP",
            "ACCESS",
            "READLINK",
            "READ",
            "WRITE",
            "CREATE",
            "MKDIR",
            "SYMLINK",
            "MKNOD",
            "REMOVE",
            "RMDIR",
            "RENAME",
            "LINK",
            "READDIR",
            "READDIRPLUS",
            "FSSTAT",
            "FSINFO",
            "PATHCONF",
            "COMMIT"
        };
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
        NONE(0),
        ATTR(1),
        WCC(2),
        ATTR_WCC(3),
        WCC2(4);

        final int falses;

        Shape(int falses) {
            this.falses = falses;
        }
    }

    @FunctionalInterface
    private interface Body<A> {
        XdrEncodable run(A args, Caller caller) throws NfsError, PosixException, InterruptedException;
    }

    /**
     * Registers the NFS program, version 3, into {@code builder}.
     *
     * @param builder the dispatcher being built, which then serves NFSv3 with this server's procedures
     */
    public void register(RpcDispatcher.Builder builder) {
        builder.register(Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.PROC_NULL, in -> Boolean.TRUE, (a, call) -> {
            calls[Nfs3.PROC_NULL].increment();
            return XdrEncodable.VOID;
        });
        procedure(builder, Nfs3.PROC_GETATTR, FileHandle3::decode, Shape.NONE, fh -> fh, attributes::getattr);
        procedure(builder, Nfs3.PROC_SETATTR, SetattrArgs::decode, Shape.WCC, SetattrArgs::object, attributes::setattr);
        procedure(builder, Nfs3.PROC_LOOKUP, DirOp::decode, Shape.ATTR, DirOp::dir, names::lookup);
        procedure(builder, Nfs3.PROC_ACCESS, AccessArgs::decode, Shape.ATTR, AccessArgs::object, attributes::access);
        procedure(builder, Nfs3.PROC_READLINK, FileHandle3::decode, Shape.ATTR, fh -> fh, data::readlink);
        procedure(
                builder,
                Nfs3.PROC_READ,
                ReadArgs::decode,
                Shape.ATTR,
                FileDataProcedures::readBuffer,
                ReadArgs::file,
                data::read);
        procedure(
                builder,
                Nfs3.PROC_WRITE,
                WriteArgs::decode,
                Shape.WCC,
                FileDataProcedures::writeBuffer,
                WriteArgs::file,
                data::write);
        procedure(
                builder,
                Nfs3.PROC_CREATE,
                CreateArgs::decode,
                Shape.WCC,
                a -> a.where().dir(),
                names::create);
        procedure(
                builder,
                Nfs3.PROC_MKDIR,
                MkdirArgs::decode,
                Shape.WCC,
                a -> a.where().dir(),
                names::mkdir);
        procedure(
                builder,
                Nfs3.PROC_SYMLINK,
                SymlinkArgs::decode,
                Shape.WCC,
                a -> a.where().dir(),
                names::symlink);
        procedure(
                builder,
                Nfs3.PROC_MKNOD,
                MknodArgs::decode,
                Shape.WCC,
                a -> a.where().dir(),
                names::mknod);
        procedure(builder, Nfs3.PROC_REMOVE, DirOp::decode, Shape.WCC, DirOp::dir, (a, c) -> names.remove(a, c, false));
        procedure(builder, Nfs3.PROC_RMDIR, DirOp::decode, Shape.WCC, DirOp::dir, (a, c) -> names.remove(a, c, true));
        procedure(
                builder,
                Nfs3.PROC_RENAME,
                RenameArgs::decode,
                Shape.WCC2,
                a -> a.from().dir(),
                names::rename);
        procedure(builder, Nfs3.PROC_LINK, LinkArgs::decode, Shape.ATTR_WCC, LinkArgs::file, names::link);
        procedure(
                builder, Nfs3.PROC_READDIR, ReaddirArgs::decodeReaddir, Shape.ATTR, ReaddirArgs::dir, listing::readdir);
        procedure(
                builder,
                Nfs3.PROC_READDIRPLUS,
                ReaddirArgs::decodeReaddirplus,
                Shape.ATTR,
                ReaddirArgs::dir,
                listing::readdir);
        procedure(builder, Nfs3.PROC_FSSTAT, FileHandle3::decode, Shape.ATTR, fh -> fh, attributes::fsstat);
        procedure(builder, Nfs3.PROC_FSINFO, FileHandle3::decode, Shape.ATTR, fh -> fh, attributes::fsinfo);
        procedure(builder, Nfs3.PROC_PATHCONF, FileHandle3::decode, Shape.ATTR, fh -> fh, attributes::pathconf);
        procedure(builder, Nfs3.PROC_COMMIT, CommitArgs::decode, Shape.WCC, CommitArgs::file, data::commit);
    }

    private <A> void procedure(
            RpcDispatcher.Builder builder,
            int number,
            XdrReader<A> arguments,
            Shape failure,
            Function<A, FileHandle3> handle,
            Body<A> body) {
        procedure(builder, number, arguments, failure, a -> 0, handle, body);
    }

    /**
     * Registers a procedure, run by the {@link CallRunner} (the client's checks, its caller, the thread acting as
     * it); {@code bufferBytes} says how large a data buffer it needs ({@link CallScope#lease()}), {@code handle}
     * which file handle it resolves first: its thread resolves that one as the server before it takes on the caller
     * ({@link ExportFs#prepare}), so that the procedure's own {@link ExportFs#resolve} of it switches no identity.
     */
    private <A> void procedure(
            RpcDispatcher.Builder builder,
            int number,
            XdrReader<A> arguments,
            Shape failure,
            java.util.function.ToLongFunction<A> bufferBytes,
            Function<A, FileHandle3> handle,
            Body<A> body) {
        Function<A, CallerThreads.Op<CallerThreads.Prepared>> prelude = args -> {
            FileHandle3 fh = handle.apply(args);
            return () -> fs.prepare(fh);
        };
        builder.register(
                Nfs3.PROGRAM, Nfs3.VERSION, number, arguments, (A args, org.panamardma.oncrpc.RpcCall call) -> {
                    calls[number].increment();
                    return runner.run(
                            number, args, call, bufferBytes, prelude, body::run, status -> failure(status, failure));
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
}
