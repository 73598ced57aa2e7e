package org.panamardma.nfs.server;

import static org.panamardma.nfs.server.Nfs3Server.MAX_DIR_REPLY;
import static org.panamardma.nfs.server.Nfs3Server.MAX_IO;
import static org.panamardma.nfs.server.PermissionPolicy.checkSetattr;
import static org.panamardma.nfs.server.PermissionPolicy.grantedAccess;
import static org.panamardma.nfs.server.PermissionPolicy.requireWritable;

import org.panamardma.nfs.Fattr3;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.FsInfo;
import org.panamardma.nfs.Nfs3Args.AccessArgs;
import org.panamardma.nfs.Nfs3Args.SetattrArgs;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.NfsTime3;
import org.panamardma.nfs.Sattr3;
import org.panamardma.nfs.WccData;
import org.panamardma.xdr.XdrEncodable;

/**
 * The NFSv3 procedures on a file's attributes and its file system's (RFC 1813 sections 3.3.1, 3.3.2, 3.3.4,
 * 3.3.18 to 3.3.20): GETATTR, SETATTR, ACCESS, FSSTAT, FSINFO, PATHCONF.
 */
final class AttributeProcedures extends ProcedureBase {
    AttributeProcedures(ExportFs fs) {
        super(fs);
    }

    /** GETATTR (RFC 1813 section 3.3.1). */
    XdrEncodable getattr(FileHandle3 fh, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(fh)) {
            Fattr3 a = attributes(fs.stat(n));
            return out -> {
                ok(out);
                a.encodeTo(out);
            };
        }
    }

    /** SETATTR (section 3.3.2). */
    XdrEncodable setattr(SetattrArgs a, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(a.object())) {
            Stat before = fs.stat(n);
            if (a.guard() != null
                    && !Stat.time(before.ctimeSec(), before.ctimeNsec()).equals(a.guard())) {
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
     * Applies {@code a} to {@code n} as the caller: size, then owner (which clears set-id bits), then mode (without
     * set-id bits for a shared identity; the kernel drops set-group-id for a caller outside the file's group), then
     * times. The file is opened for the truncate by the server (it has checked the caller may, knfsd's owner
     * allowance included); the truncate itself runs as the caller, so the kernel clears set-id bits.
     */
    void applyAttributes(Caller c, ExportFs.Node n, Stat s, Sattr3 a) throws PosixException {
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
            Posix.fchownat(
                    n.fd(), "", a.uid() == null ? -1 : a.uid(), a.gid() == null ? -1 : a.gid(), Posix.AT_EMPTY_PATH);
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
            case Sattr3.SetTime.SET_TO_CLIENT_TIME ->
                new long[] {t.time().seconds(), t.time().nanoseconds()};
            default -> new long[] {0, Posix.UTIME_OMIT};
        };
    }

    /**
     * ACCESS (section 3.3.4): the asked-for bits the caller has, as the kernel decides them for it (knfsd's
     * {@code nfsd_access}: no owner allowance here, so that the client sees the file's real permissions).
     */
    XdrEncodable access(AccessArgs a, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(a.object())) {
            Stat s = fs.stat(n);
            int granted = grantedAccess(c, n, s);
            int answer = granted & a.access();
            Fattr3 attrs = attributes(s);
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, attrs);
                out.putInt(answer);
            };
        }
    }

    /** FSSTAT (section 3.3.18). */
    XdrEncodable fsstat(FileHandle3 fh, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(fh)) {
            StatVfs v = StatVfs.of(n.fd());
            Fattr3 attrs = attributes(n);
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, attrs);
                out.putUnsignedHyper(v.blocks() * v.blockSize())
                        .putUnsignedHyper(v.free() * v.blockSize())
                        .putUnsignedHyper(v.available() * v.blockSize())
                        .putUnsignedHyper(v.files())
                        .putUnsignedHyper(v.freeFiles())
                        .putUnsignedHyper(v.availableFiles())
                        .putInt(0);
            };
        }
    }

    /** The FSINFO answer (section 3.3.19) for attributes {@code attrs}. */
    static FsInfo fsinfo(Fattr3 attrs) {
        return new FsInfo(
                attrs,
                MAX_IO,
                MAX_IO,
                4096,
                MAX_IO,
                MAX_IO,
                4096,
                MAX_DIR_REPLY,
                Long.MAX_VALUE,
                new NfsTime3(0, 1),
                FsInfo.FSF3_LINK | FsInfo.FSF3_SYMLINK | FsInfo.FSF3_HOMOGENEOUS | FsInfo.FSF3_CANSETTIME);
    }

    XdrEncodable fsinfo(FileHandle3 fh, Caller c) throws NfsError {
        try (ExportFs.Node n = fs.resolve(fh)) {
            FsInfo info = fsinfo(attributes(n));
            return out -> {
                ok(out);
                info.encodeTo(out);
            };
        }
    }

    /** PATHCONF (section 3.3.20). */
    XdrEncodable pathconf(FileHandle3 fh, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node n = fs.resolve(fh)) {
            StatVfs v = StatVfs.of(n.fd());
            Fattr3 attrs = attributes(n);
            long nameMax = v.nameMax() > 0 ? Math.min(v.nameMax(), Names.MAX) : Names.MAX;
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, attrs);
                out.putInt(32000)
                        .putUnsignedInt(nameMax)
                        .putBoolean(true)
                        .putBoolean(true)
                        .putBoolean(false)
                        .putBoolean(true);
            };
        }
    }
}
