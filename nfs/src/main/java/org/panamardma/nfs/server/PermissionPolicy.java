package org.panamardma.nfs.server;

import java.util.List;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.Sattr3;

/**
 * Who may do what on the export, as knfsd decides it, apart from the procedures that do it: a read-only export
 * refuses every change; changing a directory's entries needs write and search permission on it; the sticky bit on
 * REMOVE and RENAME; {@code sattr3} changes (mode by the owner, owner by root, group by the owner to a group it is
 * in, times to the server's clock by anyone who may write, to a given time by the owner); the ACCESS answer; hard
 * links. The kernel checks each call again as it runs it (the thread acts as the caller, {@link CallerThreads}):
 * checking first keeps a refused call from doing half its work and answers knfsd's status codes. The file-mode and
 * ACL test itself is {@link Permissions}'.
 */
final class PermissionPolicy {
    private PermissionPolicy() {}

    static void requireWritable(Caller c) throws NfsError {
        if (c.options().readOnly()) {
            throw new NfsError(NfsStat3.NFS3ERR_ROFS, "read-only export");
        }
    }

    /** Write and search permission on a directory, to change its entries. */
    static void requireModifiable(Caller c, ExportFs.Node dir) throws NfsError, PosixException {
        if (!Permissions.mayModifyEntries(dir)) {
            throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not change the entries of the directory");
        }
    }

    /** Whether the acting identity may write the entry {@code name} of {@code dir}. */
    static boolean mayWriteEntry(ExportFs fs, ExportFs.Node dir, String name) throws NfsError, PosixException {
        try (ExportFs.Node entry = fs.lookup(dir, name)) {
            return Permissions.may(entry, Permissions.WRITE);
        }
    }

    /** The sticky bit: in such a directory only the owner of an entry, of the directory, or root removes it. */
    static void requireStickyAllows(Caller c, Stat dir, Stat entry) throws NfsError {
        if ((dir.mode() & 01000) != 0 && !c.isRoot() && !c.owns(entry) && !c.owns(dir)) {
            throw new NfsError(NfsStat3.NFS3ERR_ACCES, "sticky directory: not the owner");
        }
    }

    /**
     * Who may change what (see the class comment); throws before anything is changed. The kernel checks each change
     * again as it makes it (the thread acts as the caller); checking first keeps a refused SETATTR from applying
     * half of its attributes, and answers knfsd's status codes.
     */
    static void checkSetattr(Caller c, ExportFs.Node n, Stat s, Sattr3 a) throws NfsError, PosixException {
        boolean ownerOrRoot = c.isRoot() || c.owns(s);
        if (a.size() != null) {
            ProcedureBase.requireRegular(s);
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
            if (t.how() == Sattr3.SetTime.SET_TO_SERVER_TIME
                    && !ownerOrRoot
                    && !Permissions.may(n, Permissions.WRITE)) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not touch the file");
            }
            if (t.how() == Sattr3.SetTime.SET_TO_CLIENT_TIME && !ownerOrRoot) {
                throw new NfsError(NfsStat3.NFS3ERR_PERM, c + " may not set the file's times");
            }
        }
    }

    /**
     * ACCESS (RFC 1813 section 3.3.4): which {@code ACCESS3_*} bits the caller has on {@code n}, as the kernel
     * decides them for it (knfsd's {@code nfsd_access}: no owner allowance here, so that the client sees the file's
     * real permissions); the modifying bits never on a read-only export.
     */
    static int grantedAccess(Caller c, ExportFs.Node n, Stat s) throws PosixException {
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
        return granted;
    }

    /**
     * LINK (section 3.3.15), as Linux's {@code protected_hardlinks}: a hard link only to a file one owns or may read
     * and write, never to a directory.
     */
    static void requireMayLink(Caller c, ExportFs.Node file, Stat s) throws NfsError, PosixException {
        if (s.isDirectory()) {
            throw new NfsError(NfsStat3.NFS3ERR_ISDIR, "hard link to a directory");
        }
        if (!c.isRoot()
                && !c.owns(s)
                && !(s.isRegular() && Permissions.may(file, Permissions.READ | Permissions.WRITE))) {
            throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not link to a file it cannot read and write");
        }
    }
}
