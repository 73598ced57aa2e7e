package org.panamardma.nfs.server;

import java.util.Arrays;
import org.panamardma.oncrpc.AuthFlavor;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.xdr.XdrException;

/**
 * Maps a call's credential to the identity the server acts as ({@link Caller}), as knfsd's {@code nfsd_setuser}
 * (fs/nfsd/auth.c) does. AUTH_SYS proves nothing: its ids are whatever the client's kernel (or any program on a
 * host allowed to connect) writes, which is why root is squashed and why the ids are checked here:
 * <ol>
 *   <li>a flavor other than AUTH_SYS (AUTH_NONE) is the anonymous user and group, no supplementary groups;
 *   <li>{@code all_squash}: every caller is the anonymous user and group, with no supplementary groups;
 *   <li>{@code root_squash}: uid 0 becomes the anonymous user, gid 0 the anonymous group, also among the
 *       supplementary groups;
 *   <li>an id the kernel cannot represent ({@link IdRanges}: (uid_t) -1, or one outside the user namespace's map)
 *       becomes the anonymous user or group; such a supplementary group is dropped (knfsd refuses the whole call
 *       with AUTH_BADCRED; dropping grants nothing the caller did not have);
 *   <li>a server that cannot act as its callers ({@link ServerIdentity#privileged()} false) maps every caller to its
 *       own user and group.
 * </ol>
 * The anonymous identity (and the server's own, in the last case) is shared by every caller mapped to it, so a
 * caller acting as it may not make set-id files ({@link Caller#sharedIdentity()}).
 */
final class Squashing {
    private final IdRanges uids;
    private final IdRanges gids;
    private final ServerIdentity server;

    Squashing(IdRanges uids, IdRanges gids, ServerIdentity server) {
        this.uids = uids;
        this.gids = gids;
        this.server = server;
    }

    /** For this process: its user namespace's maps and its privileges. */
    static Squashing forThisProcess(ServerIdentity server) {
        return new Squashing(IdRanges.users(), IdRanges.groups(), server);
    }

    Caller map(RpcCall call, ExportOptions options) {
        String machine = "";
        int uid;
        int gid;
        int[] groups;
        if (call.credential().flavor() != AuthFlavor.AUTH_SYS) {
            uid = options.anonUid();
            gid = options.anonGid();
            groups = new int[0];
        } else {
            AuthSysParms p;
            try {
                p = AuthSysParms.from(call.credential());
            } catch (XdrException e) {
                // the dispatcher's authenticator refuses malformed AUTH_SYS before any procedure runs
                p = null;
            }
            if (p == null) {
                uid = options.anonUid();
                gid = options.anonGid();
                groups = new int[0];
            } else {
                machine = p.machineName();
                uid = p.uid();
                gid = p.gid();
                groups = p.gids().stream().mapToInt(Integer::intValue).toArray();
            }
        }
        if (options.allSquash()) {
            uid = options.anonUid();
            gid = options.anonGid();
            groups = new int[0];
        } else if (options.rootSquash()) {
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
        if (!uids.isValid(uid)) {
            uid = options.anonUid();
        }
        if (!gids.isValid(gid)) {
            gid = options.anonGid();
        }
        groups = Arrays.stream(groups).filter(gids::isValid).toArray();
        if (!server.privileged()) {
            return new Caller(server.uid(), server.gid(), new int[0], machine, true, options);
        }
        return new Caller(uid, gid, groups, machine, uid == options.anonUid(), options);
    }
}
