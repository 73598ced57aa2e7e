package org.panamardma.nfs.server;

/**
 * How an export is served to a client, as exports(5) names the options; the defaults are knfsd's ({@code rw}
 * aside: {@code ro} is the one choice to make).
 *
 * @param readOnly refuse every change with NFS3ERR_ROFS ({@code ro}; {@code rw} when false)
 * @param rootSquash map AUTH_SYS uid 0 and gid 0 (also among the supplementary groups) to the anonymous ids
 *                   ({@code root_squash}, the default; {@code no_root_squash} when false)
 * @param allSquash map every caller to the anonymous ids, with no supplementary groups ({@code all_squash})
 * @param secure take calls only from source ports below 1024, which only root (CAP_NET_BIND_SERVICE) can bind on
 *               the client ({@code secure}, the default; {@code insecure} when false). Over RDMA the port proves
 *               nothing and is not checked, as knfsd does not (svc_rdma_recvfrom marks every RDMA call secure):
 *               the Linux client connects from an ephemeral RDMA CM port
 * @param sync commit metadata changes (CREATE, MKDIR, REMOVE, RENAME, LINK, SYMLINK, MKNOD, SETATTR) to stable
 *             storage before replying ({@code sync}, the default; {@code async} when false), as knfsd's
 *             {@code commit_metadata}
 * @param anonUid the anonymous user: 65534 ({@code nobody}) by default ({@code anonuid})
 * @param anonGid the anonymous group: 65534 ({@code nogroup}) by default ({@code anongid})
 */
public record ExportOptions(
        boolean readOnly,
        boolean rootSquash,
        boolean allSquash,
        boolean secure,
        boolean sync,
        int anonUid,
        int anonGid) {
    /** Read-write, root squashed to 65534:65534, reserved ports only, metadata committed before replying. */
    public static final ExportOptions DEFAULTS = new ExportOptions(false, true, false, true, true, 65534, 65534);

    /**
     * Checks the anonymous ids.
     *
     * @throws IllegalArgumentException if an anonymous id is -1, which no file can be owned by
     */
    public ExportOptions {
        if (anonUid == -1 || anonGid == -1) {
            throw new IllegalArgumentException("anonymous ids " + Integer.toUnsignedString(anonUid) + ":"
                    + Integer.toUnsignedString(anonGid) + ": 4294967295 is no id");
        }
    }

    /**
     * {@return these options with {@code ro} (true) or {@code rw} (false)}
     *
     * @param readOnly whether every change is refused with NFS3ERR_ROFS
     */
    public ExportOptions withReadOnly(boolean readOnly) {
        return new ExportOptions(readOnly, rootSquash, allSquash, secure, sync, anonUid, anonGid);
    }

    /**
     * {@return these options with {@code root_squash} (true) or {@code no_root_squash} (false)}
     *
     * @param rootSquash whether uid and gid 0 map to the anonymous ids
     */
    public ExportOptions withRootSquash(boolean rootSquash) {
        return new ExportOptions(readOnly, rootSquash, allSquash, secure, sync, anonUid, anonGid);
    }

    /**
     * {@return these options with {@code all_squash} (true) or {@code no_all_squash} (false)}
     *
     * @param allSquash whether every caller maps to the anonymous ids
     */
    public ExportOptions withAllSquash(boolean allSquash) {
        return new ExportOptions(readOnly, rootSquash, allSquash, secure, sync, anonUid, anonGid);
    }

    /**
     * {@return these options with {@code secure} (true) or {@code insecure} (false)}
     *
     * @param secure whether TCP calls must come from a port below 1024
     */
    public ExportOptions withSecure(boolean secure) {
        return new ExportOptions(readOnly, rootSquash, allSquash, secure, sync, anonUid, anonGid);
    }

    /**
     * {@return these options with {@code sync} (true) or {@code async} (false)}
     *
     * @param sync whether metadata changes are committed before the reply
     */
    public ExportOptions withSync(boolean sync) {
        return new ExportOptions(readOnly, rootSquash, allSquash, secure, sync, anonUid, anonGid);
    }

    /**
     * {@return these options with {@code anonuid} and {@code anongid}}
     *
     * @param uid the anonymous user id, not -1
     * @param gid the anonymous group id, not -1
     * @throws IllegalArgumentException if either is -1
     */
    public ExportOptions withAnonymous(int uid, int gid) {
        return new ExportOptions(readOnly, rootSquash, allSquash, secure, sync, uid, gid);
    }

    /**
     * These options changed by a comma-separated list of exports(5) option names: {@code ro}, {@code rw},
     * {@code root_squash}, {@code no_root_squash}, {@code all_squash}, {@code no_all_squash}, {@code secure},
     * {@code insecure}, {@code sync}, {@code async}, {@code anonuid=N}, {@code anongid=N}.
     *
     * @param list option names separated by commas; empty items are skipped
     * @return the changed options
     * @throws IllegalArgumentException naming an option this server does not know, or a bad id
     */
    public ExportOptions with(String list) {
        ExportOptions o = this;
        for (String option : list.split(",")) {
            String name = option.trim();
            if (name.isEmpty()) {
                continue;
            }
            o = switch (name) {
                case "ro" -> o.withReadOnly(true);
                case "rw" -> o.withReadOnly(false);
                case "root_squash" -> o.withRootSquash(true);
                case "no_root_squash" -> o.withRootSquash(false);
                case "all_squash" -> o.withAllSquash(true);
                case "no_all_squash" -> o.withAllSquash(false);
                case "secure" -> o.withSecure(true);
                case "insecure" -> o.withSecure(false);
                case "sync" -> o.withSync(true);
                case "async" -> o.withSync(false);
                default -> {
                    if (name.startsWith("anonuid=")) {
                        yield o.withAnonymous(id(name), o.anonGid());
                    }
                    if (name.startsWith("anongid=")) {
                        yield o.withAnonymous(o.anonUid(), id(name));
                    }
                    throw new IllegalArgumentException("unknown export option \"" + name + "\"");
                }
            };
        }
        return o;
    }

    private static int id(String option) {
        String value = option.substring(option.indexOf('=') + 1);
        try {
            return Integer.parseUnsignedInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an id: " + option);
        }
    }

    /** The options in exports(5) syntax, for log lines. */
    @Override
    public String toString() {
        return (readOnly ? "ro" : "rw") + ","
                + (allSquash ? "all_squash" : rootSquash ? "root_squash" : "no_root_squash") + ","
                + (secure ? "secure" : "insecure") + "," + (sync ? "sync" : "async")
                + ",anonuid=" + Integer.toUnsignedString(anonUid) + ",anongid=" + Integer.toUnsignedString(anonGid);
    }
}
