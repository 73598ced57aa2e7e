package org.panamardma.nfs.server;

import java.util.Arrays;

/**
 * Who a call acts as, after {@link Squashing}: the user, group and supplementary groups the server takes on for it
 * ({@link CallerThreads}), so that the kernel checks its permissions and makes its files.
 *
 * @param uid the file-system user id
 * @param gid the file-system group id
 * @param groups the supplementary groups
 * @param machine the client's name from the credential, for log lines
 * @param sharedIdentity whether this identity stands for more than one caller (the anonymous user, or the server's
 *                       own user when it cannot act as others): such a caller may not make set-id files, which
 *                       would let anyone who runs them become that user
 * @param options how the export is served to the caller's client (read-only, sync)
 */
record Caller(int uid, int gid, int[] groups, String machine, boolean sharedIdentity, ExportOptions options) {
    Caller {
        groups = groups.clone();
    }

    boolean isRoot() {
        return uid == 0;
    }

    boolean inGroup(int g) {
        if (gid == g) {
            return true;
        }
        for (int x : groups) {
            if (x == g) {
                return true;
            }
        }
        return false;
    }

    boolean owns(Stat s) {
        return uid == s.uid();
    }

    /**
     * A mode the caller asked for, as the server applies it: without the set-user-id and set-group-id bits when
     * the identity is shared.
     */
    int permittedMode(int mode) {
        return sharedIdentity ? mode & ~06000 : mode;
    }

    @Override
    public int[] groups() {
        return groups.clone();
    }

    @Override
    public String toString() {
        return "uid " + Integer.toUnsignedString(uid) + " gid " + Integer.toUnsignedString(gid) + " groups "
                + Arrays.toString(groups) + (machine.isEmpty() ? "" : " from " + machine);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Caller c
                && c.uid == uid
                && c.gid == gid
                && Arrays.equals(c.groups, groups)
                && c.machine.equals(machine)
                && c.sharedIdentity == sharedIdentity
                && c.options.equals(options);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * uid + gid) + Arrays.hashCode(groups);
    }
}
