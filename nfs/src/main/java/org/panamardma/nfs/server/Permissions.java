package org.panamardma.nfs.server;

/**
 * Who may do what to a file: the kernel decides, for the identity the calling thread acts as ({@link CallerThreads}),
 * with {@code faccessat2(AT_EACCESS)} on the file's descriptor. So POSIX ACLs count (where a file has an ACL, the
 * group bits of its mode are the ACL's mask, not a group's permission: st_mode arithmetic would be wrong), and so do
 * capabilities (root not squashed may do what root may). On top, knfsd's two allowances ({@code nfsd_permission},
 * fs/nfsd/vfs.c), which exist because NFS has no open files: the owner may read and write its file whatever the mode
 * (a file created read-only with open(O_CREAT|O_WRONLY, 0444) is still written through that descriptor), and a
 * regular file that may be executed may be read (a client executes a binary by reading it).
 */
final class Permissions {
    static final int READ = Posix.R_OK;
    static final int WRITE = Posix.W_OK;
    static final int EXECUTE = Posix.X_OK;

    private Permissions() {}

    /** Whether the acting identity may {@code want} ({@link #READ} | {@link #WRITE} | {@link #EXECUTE}) {@code n}. */
    static boolean may(ExportFs.Node n, int want) throws PosixException {
        return Posix.faccess(n.fd(), want) == 0;
    }

    /** READ of a file: the owner, or read permission, or execute permission of a regular file. */
    static boolean mayRead(Caller c, ExportFs.Node n) throws PosixException {
        return c.owns(n.stat()) || may(n, READ) || (n.stat().isRegular() && may(n, EXECUTE));
    }

    /** WRITE (and a SETATTR of the size) of a file: the owner, or write permission. */
    static boolean mayWrite(Caller c, ExportFs.Node n) throws PosixException {
        return c.owns(n.stat()) || may(n, WRITE);
    }

    /** Changing a directory's entries: write and search permission on it. */
    static boolean mayModifyEntries(ExportFs.Node dir) throws PosixException {
        return may(dir, WRITE | EXECUTE);
    }
}
