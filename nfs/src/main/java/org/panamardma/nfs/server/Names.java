package org.panamardma.nfs.server;

import org.panamardma.nfs.NfsStat3;

/** What a client may name a file ({@code filename3}, RFC 1813 section 2.5): one component, as a byte string. */
final class Names {
    /** NAME_MAX of Linux, and what PATHCONF answers. */
    static final int MAX = 255;

    private Names() {}

    /**
     * Checks one path component: not empty, at most {@value #MAX} bytes, no '/' and no NUL (either would make it
     * more than one component, or cut it short, at the system call). "." and ".." pass (LOOKUP handles them); see
     * {@link #checkNew} for names of files to create.
     *
     * @throws NfsError NAMETOOLONG or ACCES
     */
    static void check(String name) throws NfsError {
        if (name.length() > MAX) {
            throw new NfsError(NfsStat3.NFS3ERR_NAMETOOLONG, name.length() + " bytes");
        }
        if (name.isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new NfsError(NfsStat3.NFS3ERR_ACCES, "not a file name: \"" + ExportFs.display(name) + "\"");
        }
    }

    /** {@link #check}, and not "." or "..": those exist in every directory (NFS3ERR_EXIST, as mkdir(2) says). */
    static void checkNew(String name) throws NfsError {
        check(name);
        if (name.equals(".") || name.equals("..")) {
            throw new NfsError(NfsStat3.NFS3ERR_EXIST, "\"" + name + "\"");
        }
    }
}
