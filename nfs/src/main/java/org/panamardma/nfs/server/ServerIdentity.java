package org.panamardma.nfs.server;

/**
 * Who the server process is, and whether it can act as its callers: that needs CAP_SETUID and CAP_SETGID (to take
 * a caller's file-system ids and groups) in the permitted set, which root has. A server without them (a user
 * starting it for a test) can only act as itself: then every caller is mapped to the server's own user and group
 * ({@link Squashing}), the kernel checks what that user may do, and no client may make set-id files (they would
 * run as the server's user for whoever executes them).
 *
 * @param uid the process's effective user id (its file-system user id between calls)
 * @param gid the process's effective group id
 * @param privileged whether the server acts as each caller
 */
record ServerIdentity(int uid, int gid, boolean privileged) {
    /** The identity of this process, read once at start. */
    static ServerIdentity ofThisProcess() {
        int uid = Posix.geteuid();
        int gid = ThreadCredentials.getegid();
        boolean privileged;
        try {
            ThreadCredentials.Capabilities c = ThreadCredentials.capget();
            privileged = c.mayRaise(ThreadCredentials.CAP_SETUID) && c.mayRaise(ThreadCredentials.CAP_SETGID);
        } catch (PosixException e) {
            privileged = false;
        }
        return new ServerIdentity(uid, gid, privileged);
    }

    @Override
    public String toString() {
        return "uid " + Integer.toUnsignedString(uid) + " gid " + Integer.toUnsignedString(gid)
                + (privileged ? "" : " (unprivileged)");
    }
}
