package org.panamardma.nfs.server;

import java.util.Arrays;
import org.panamardma.oncrpc.AuthFlavor;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.xdr.XdrException;

/**
 * Who a call acts as, after squashing: the AUTH_SYS user, group and supplementary groups (RFC 5531 section 10.2),
 * with root mapped to the anonymous ids when the export squashes root (as knfsd's {@code root_squash}, the default:
 * uid 0 becomes {@code anonuid}, gid 0 {@code anongid}, also among the supplementary groups), and AUTH_NONE mapped
 * to the anonymous ids always.
 *
 * @param uid the effective user
 * @param gid the effective group
 * @param groups the supplementary groups
 * @param machine the client's name from the credential, for log lines
 */
record Caller(int uid, int gid, int[] groups, String machine) {
    static Caller of(RpcCall call, ExportOptions options) {
        if (call.credential().flavor() != AuthFlavor.AUTH_SYS) {
            return new Caller(options.anonUid(), options.anonGid(), new int[0], "");
        }
        AuthSysParms p;
        try {
            p = AuthSysParms.from(call.credential());
        } catch (XdrException e) {
            // the dispatcher's authenticator refuses malformed AUTH_SYS before any procedure runs
            return new Caller(options.anonUid(), options.anonGid(), new int[0], "");
        }
        int uid = p.uid();
        int gid = p.gid();
        int[] groups = p.gids().stream().mapToInt(Integer::intValue).toArray();
        if (options.rootSquash()) {
            if (uid == 0) {
                uid = options.anonUid();
            }
            if (gid == 0) {
                gid = options.anonGid();
            }
            for (int i = 0; i < groups.length; i++) {
                if (groups[i] == 0) {
                    groups[i] = options.anonGid();
                }
            }
        }
        return new Caller(uid, gid, groups, p.machineName());
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

    static final int READ = 4;
    static final int WRITE = 2;
    static final int EXECUTE = 1;

    /**
     * POSIX permission check of {@code want} ({@link #READ} | {@link #WRITE} | {@link #EXECUTE}) on a file: the
     * owner's bits if the caller owns it, else the group's if it is in the file's group, else the others'. Root may
     * do anything, except execute a file no one may execute.
     */
    boolean may(Stat s, int want) {
        int mode = s.mode();
        if (isRoot()) {
            return (want & EXECUTE) == 0 || s.isDirectory() || (mode & 0111) != 0;
        }
        int bits;
        if (uid == s.uid()) {
            bits = (mode >> 6) & 7;
        } else if (inGroup(s.gid())) {
            bits = (mode >> 3) & 7;
        } else {
            bits = mode & 7;
        }
        return (bits & want) == want;
    }

    boolean owns(Stat s) {
        return uid == s.uid();
    }

    @Override
    public String toString() {
        return "uid " + Integer.toUnsignedString(uid) + " gid " + Integer.toUnsignedString(gid) + " groups "
                + Arrays.toString(groups) + (machine.isEmpty() ? "" : " from " + machine);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Caller c && c.uid == uid && c.gid == gid && Arrays.equals(c.groups, groups)
                && c.machine.equals(machine);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * uid + gid) + Arrays.hashCode(groups);
    }
}
