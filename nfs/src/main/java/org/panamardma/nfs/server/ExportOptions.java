package org.panamardma.nfs.server;

/**
 * How an export is served; the defaults are knfsd's ({@code rw} aside: {@code ro} is the only choice to make).
 *
 * @param readOnly refuse every change with NFS3ERR_ROFS
 * @param rootSquash map AUTH_SYS uid 0 and gid 0 to the anonymous ids ({@code root_squash}, the default)
 * @param anonUid the anonymous user: 65534 ({@code nobody}) by default
 * @param anonGid the anonymous group: 65534 ({@code nogroup}) by default
 */
public record ExportOptions(boolean readOnly, boolean rootSquash, int anonUid, int anonGid) {
    /** Read-write, root squashed to 65534:65534. */
    public static final ExportOptions DEFAULTS = new ExportOptions(false, true, 65534, 65534);

    public ExportOptions withReadOnly(boolean readOnly) {
        return new ExportOptions(readOnly, rootSquash, anonUid, anonGid);
    }

    public ExportOptions withRootSquash(boolean rootSquash) {
        return new ExportOptions(readOnly, rootSquash, anonUid, anonGid);
    }

    public ExportOptions withAnonymous(int uid, int gid) {
        return new ExportOptions(readOnly, rootSquash, uid, gid);
    }
}
