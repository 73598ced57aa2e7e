package org.panamardma.nfs;

/** {@code mountstat3}: the status of MOUNT version 3 MNT (RFC 1813 appendix I, section 5.1.4). */
public enum MountStat3 {
    MNT3_OK(0),
    MNT3ERR_PERM(1),
    MNT3ERR_NOENT(2),
    MNT3ERR_IO(5),
    MNT3ERR_ACCES(13),
    MNT3ERR_NOTDIR(20),
    MNT3ERR_INVAL(22),
    MNT3ERR_NAMETOOLONG(63),
    MNT3ERR_NOTSUPP(10004),
    MNT3ERR_SERVERFAULT(10006);

    private final int code;

    MountStat3(int code) {
        this.code = code;
    }

    /** @return the value on the wire */
    public int code() {
        return code;
    }

    /** @return the status of {@code code}, or {@code null} if the RFC defines none */
    public static MountStat3 of(int code) {
        for (MountStat3 s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}
