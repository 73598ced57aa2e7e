package org.panamardma.nfs.server;

import static org.panamardma.nfs.server.Nfs3Server.MAX_PATH;
import static org.panamardma.nfs.server.PermissionPolicy.checkSetattr;
import static org.panamardma.nfs.server.PermissionPolicy.mayWriteEntry;
import static org.panamardma.nfs.server.PermissionPolicy.requireMayLink;
import static org.panamardma.nfs.server.PermissionPolicy.requireModifiable;
import static org.panamardma.nfs.server.PermissionPolicy.requireStickyAllows;
import static org.panamardma.nfs.server.PermissionPolicy.requireWritable;

import java.nio.ByteBuffer;
import java.util.List;
import org.panamardma.nfs.Fattr3;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Args.CreateArgs;
import org.panamardma.nfs.Nfs3Args.DirOp;
import org.panamardma.nfs.Nfs3Args.LinkArgs;
import org.panamardma.nfs.Nfs3Args.MkdirArgs;
import org.panamardma.nfs.Nfs3Args.MknodArgs;
import org.panamardma.nfs.Nfs3Args.RenameArgs;
import org.panamardma.nfs.Nfs3Args.SymlinkArgs;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.Sattr3;
import org.panamardma.nfs.WccData;
import org.panamardma.xdr.XdrEncodable;

/**
 * The NFSv3 procedures on a directory's names (RFC 1813 sections 3.3.3, 3.3.8 to 3.3.15): LOOKUP, CREATE, MKDIR,
 * SYMLINK, MKNOD, REMOVE, RMDIR, RENAME and LINK. New files are made by the thread acting as the caller, so they
 * are the caller's; each change is committed before the reply on a {@code sync} export.
 */
final class NamespaceProcedures extends ProcedureBase {
    private final AttributeProcedures attributes;

    NamespaceProcedures(ExportFs fs, AttributeProcedures attributes) {
        super(fs);
        this.attributes = attributes;
    }

    /** LOOKUP (section 3.3.3). */
    XdrEncodable lookup(DirOp a, Caller c) throws NfsError, PosixException {
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
     * What CREATE, MKDIR, SYMLINK, MKNOD and LINK check before they make {@code name} in {@code dir}: a directory,
     * a name that may be made (not "." or "..", at most NAME_MAX, no "/"), a path within PATH_MAX, and the caller's
     * right to change the directory's entries.
     *
     * @return the directory's status before the change, for the reply's {@code wcc_data}
     */
    private Stat checkNewEntry(Caller c, ExportFs.Node dir, String name) throws NfsError, PosixException {
        requireDirectory(dir);
        Names.checkNew(name);
        ExportFs.checkPathLength(dir, name);
        requireModifiable(c, dir);
        return fs.stat(dir);
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
            Posix.fchownat(
                    child.fd(),
                    "",
                    a.uid() == null ? -1 : a.uid(),
                    a.gid() == null ? -1 : a.gid(),
                    Posix.AT_EMPTY_PATH);
        }
        Sattr3 rest = new Sattr3(null, null, null, a.size(), a.atime(), a.mtime());
        if (rest.size() != null || rest.atime().how() != 0 || rest.mtime().how() != 0) {
            if (child.stat().isSymlink()) {
                return;
            }
            attributes.applyAttributes(c, child, child.stat(), rest);
        }
    }

    /** CREATE (section 3.3.8): UNCHECKED, GUARDED, and EXCLUSIVE with the verifier kept in atime and mtime. */
    XdrEncodable create(CreateArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        try (ExportFs.Node dir = fs.resolve(a.where().dir())) {
            String name = a.where().name();
            Stat dirBefore = checkNewEntry(c, dir, name);
            Integer mode = a.attributes().mode();
            int initial =
                    a.mode() == Nfs3.CREATE_EXCLUSIVE ? 0600 : (mode == null ? 0644 : c.permittedMode(mode) & 07777);
            int fd;
            try {
                fd = Posix.openat2(
                        dir.fd(),
                        name,
                        Posix.O_CREAT | Posix.O_EXCL | Posix.O_RDONLY | Posix.O_NOFOLLOW,
                        initial,
                        Posix.RESOLVE_CONFINED);
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
                    Posix.utimensat(
                            Posix.AT_FDCWD,
                            Posix.procPath(child.fd()),
                            Integer.toUnsignedLong(v.getInt()),
                            0,
                            Integer.toUnsignedLong(v.getInt()),
                            0,
                            0);
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
                attributes.applyAttributes(c, existing, s, size);
                commitMetadata(c, existing);
            }
            return created(dir, dirBefore, existing);
        }
    }

    /** MKDIR (section 3.3.9). */
    XdrEncodable mkdir(MkdirArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        try (ExportFs.Node dir = fs.resolve(a.where().dir())) {
            String name = a.where().name();
            Stat dirBefore = checkNewEntry(c, dir, name);
            Integer mode = a.attributes().mode();
            // mkdir(2) keeps the permission and sticky bits; a directory below a set-group-id directory becomes
            // set-group-id by the kernel (and takes its group)
            PosixNames.mkdirat(dir.fd(), name, mode == null ? 0755 : c.permittedMode(mode) & 07777);
            try (ExportFs.Node child = fs.lookup(dir, name)) {
                initialize(c, child, a.attributes());
                commitMetadata(c, child, dir);
                return created(dir, dirBefore, child);
            }
        }
    }

    /** SYMLINK (section 3.3.10); the target is stored as given: the server never follows it, clients do. */
    XdrEncodable symlink(SymlinkArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        if (a.target().isEmpty() || a.target().indexOf('\0') >= 0) {
            throw new NfsError(NfsStat3.NFS3ERR_INVAL, "symbolic link target empty or holding a NUL");
        }
        if (a.target().length() > MAX_PATH) {
            throw new NfsError(
                    NfsStat3.NFS3ERR_NAMETOOLONG, "target of " + a.target().length() + " bytes");
        }
        try (ExportFs.Node dir = fs.resolve(a.where().dir())) {
            String name = a.where().name();
            Stat dirBefore = checkNewEntry(c, dir, name);
            PosixNames.symlinkat(a.target(), dir.fd(), name);
            try (ExportFs.Node child = fs.lookup(dir, name)) {
                initialize(
                        c,
                        child,
                        Sattr3.NONE.withOwner(
                                a.attributes().uid(), a.attributes().gid()));
                commitMetadata(c, dir); // the directory's fsync commits the new link's inode with it (journal)
                return created(dir, dirBefore, child);
            }
        }
    }

    /** MKNOD (section 3.3.11): FIFOs and sockets for anyone who may create; devices for root only. */
    XdrEncodable mknod(MknodArgs a, Caller c) throws NfsError, PosixException {
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
            String name = a.where().name();
            Stat dirBefore = checkNewEntry(c, dir, name);
            Integer mode = a.attributes().mode();
            long dev = makedev(a.major(), a.minor());
            PosixNames.mknodat(dir.fd(), name, type | (c.permittedMode(mode == null ? 0644 : mode) & 07777), dev);
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
    XdrEncodable remove(DirOp a, Caller c, boolean directory) throws NfsError, PosixException {
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
            PosixNames.unlinkat(dir.fd(), name, directory ? Posix.AT_REMOVEDIR : 0);
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
    XdrEncodable rename(RenameArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        try (ExportFs.Node from = fs.resolve(a.from().dir());
                ExportFs.Node to = fs.resolve(a.to().dir())) {
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
            if (source.isDirectory()
                    && fromBefore.ino() != toBefore.ino()
                    && !mayWriteEntry(fs, from, a.from().name())) {
                // moving a directory elsewhere rewrites its ".." entry
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not move the directory");
            }
            PosixNames.renameat(from.fd(), a.from().name(), to.fd(), a.to().name());
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

    /** LINK (section 3.3.15): a hard link, where {@link PermissionPolicy#requireMayLink} allows it. */
    XdrEncodable link(LinkArgs a, Caller c) throws NfsError, PosixException {
        requireWritable(c);
        try (ExportFs.Node file = fs.resolve(a.file());
                ExportFs.Node dir = fs.resolve(a.link().dir())) {
            String name = a.link().name();
            Stat dirBefore = checkNewEntry(c, dir, name);
            Stat s = file.stat();
            requireMayLink(c, file, s);
            if (s.isSymlink()) {
                // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH: the server links, having checked the caller may
                CallerThreads.asServer(() -> {
                    PosixNames.linkat(file.fd(), "", dir.fd(), name, Posix.AT_EMPTY_PATH);
                    return null;
                });
            } else {
                PosixNames.linkat(Posix.AT_FDCWD, Posix.procPath(file.fd()), dir.fd(), name, Posix.AT_SYMLINK_FOLLOW);
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
}
