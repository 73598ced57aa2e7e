package org.panamardma.nfs;

/** {@code mountstat3}: the status of MOUNT version 3 MNT (RFC 1813 appendix I, section 5.1.4). */
public enum MountStat3 {
    /** Success: the root file handle and flavors follow. */
    MNT3_OK(0),
    /** Not owner: the caller may not mount this path. */
    MNT3ERR_PERM(1),
    /** No such file or directory. */
    MNT3ERR_NOENT(2),
    /** An I/O error. */
    MNT3ERR_IO(5),
    /** Permission denied: the caller's address is not among the export's clients. */
    MNT3ERR_ACCES(13),
    /** The path is not a directory. */
    MNT3ERR_NOTDIR(20),
    /** An invalid argument. */
    MNT3ERR_INVAL(22),
    /** The path is longer than MNTPATHLEN. */
    MNT3ERR_NAMETOOLONG(63),
    /** The operation is not supported. */
    MNT3ERR_NOTSUPP(10004),
    /** A server error with no better status. */
    MNT3ERR_SERVERFAULT(10006);

    private final int code;

    MountStat3(int code) {
        this.code = code;
    }

    /** {@return the value on the wire} */
    public int code() {
        return code;
    }

    /**
     * {@return the status of {@code code}, or {@code null} if the RFC defines none}
     *
     * @param code the {@code mountstat3} word as received
     */
    public static MountStat3 of(int code) {
        for (MountStat3 s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}
