package org.panamardma.nfs.server;

import java.util.Arrays;

/**
 * The identities one {@link CallerThreads} thread switches between, the server's and its callers', and what the
 * kernel holds for the thread now, so that a switch makes only the system calls that change something: a caller
 * with the server's groups keeps them; root not squashed, served by root with its groups, switches nothing.
 * {@link ThreadCredentials} makes the calls. Only the thread it belongs to uses it.
 */
final class ThreadIdentity {
    private final ServerIdentity server;
    private final int fsuid;
    private final int fsgid;
    private final int[] groups;
    private final ThreadCredentials.Capabilities capabilities;
    // what the kernel holds for this thread now, as last set and checked here
    private int appliedUid;
    private int appliedGid;
    private int[] appliedGroups;
    private long appliedEffective;
    /** False while a change is under way or failed: the next switch then sets everything. */
    private boolean appliedKnown;

    ThreadIdentity(ServerIdentity server) throws PosixException {
        this.server = server;
        ThreadCredentials.privateUmaskZero();
        this.fsuid = ThreadCredentials.fsuid();
        this.fsgid = ThreadCredentials.fsgid();
        if (server.privileged() && (fsuid != server.uid() || fsgid != server.gid())) {
            // a thread started by one acting as a caller holds the caller's ids: they must not pass for the server's
            throw new PosixException(
                    PosixException.EPERM,
                    "taking the server's identity",
                    "a thread holding uid " + Integer.toUnsignedString(fsuid) + " gid "
                            + Integer.toUnsignedString(fsgid) + ", not " + server);
        }
        this.groups = ThreadCredentials.getgroups();
        this.capabilities = ThreadCredentials.capget();
        this.appliedUid = fsuid;
        this.appliedGid = fsgid;
        this.appliedGroups = groups;
        this.appliedEffective = capabilities.effective();
        this.appliedKnown = true;
    }

    /**
     * Takes on {@code c}: groups, then group, then user, then capabilities (the nfsd set dropped unless the
     * caller is root, as {@code nfsd_setuser}), and checks the ids took.
     *
     * @throws IllegalStateException if the kernel refused any of it: the call must not run as the server
     */
    void actAs(Caller c) {
        if (!server.privileged()) {
            return;
        }
        long effective = c.isRoot()
                ? capabilities.effective() | (capabilities.permitted() & ThreadCredentials.NFSD_SET)
                : capabilities.effective() & ~ThreadCredentials.NFSD_SET;
        try {
            apply(c.uid(), c.gid(), c.groups(), effective);
        } catch (PosixException | RuntimeException e) {
            throw new IllegalStateException("acting as " + c + ": " + e.getMessage(), e);
        }
    }

    /** Back to the server's credentials. @throws IllegalStateException if they did not take */
    void restore() {
        if (!server.privileged()) {
            return;
        }
        try {
            apply(fsuid, fsgid, groups, capabilities.effective());
        } catch (PosixException | RuntimeException e) {
            throw new IllegalStateException("restoring the server's identity: " + e.getMessage(), e);
        }
    }

    /**
     * Makes the kernel hold these credentials for this thread, with a system call for each that differs from
     * what it holds, and checks the ids took ({@code setfsuid} reports no error). The capabilities are set
     * again whenever the user changes: the kernel itself raises or drops the file-system ones when the
     * file-system user changes to or from 0 ({@code cap_emulate_setxuid}'s fsuid case).
     */
    private void apply(int uid, int gid, int[] wantGroups, long effective) throws PosixException {
        boolean known = appliedKnown;
        appliedKnown = false; // until every call below has returned and the ids are checked
        if (!known || !Arrays.equals(wantGroups, appliedGroups)) {
            ThreadCredentials.setgroups(wantGroups);
            appliedGroups = wantGroups;
        }
        boolean idsChanged = !known || gid != appliedGid || uid != appliedUid;
        if (idsChanged) {
            ThreadCredentials.setfsgid(gid);
            ThreadCredentials.setfsuid(uid);
            int nowUid = ThreadCredentials.fsuid();
            int nowGid = ThreadCredentials.fsgid();
            if (nowUid != uid || nowGid != gid) {
                throw new IllegalStateException("the kernel holds uid " + Integer.toUnsignedString(nowUid)
                        + " gid " + Integer.toUnsignedString(nowGid) + ", not " + Integer.toUnsignedString(uid)
                        + " " + Integer.toUnsignedString(gid));
            }
            appliedUid = uid;
            appliedGid = gid;
        }
        if (idsChanged || effective != appliedEffective) {
            ThreadCredentials.capset(capabilities.withEffective(effective));
            appliedEffective = effective;
        }
        appliedKnown = true;
    }
}
