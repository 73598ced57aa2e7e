package org.panamardma.nfs;

/** {@code ftype3} (RFC 1813 section 2.6). */
public enum FileType3 {
    NF3REG(1),
    NF3DIR(2),
    NF3BLK(3),
    NF3CHR(4),
    NF3LNK(5),
    NF3SOCK(6),
    NF3FIFO(7);

    private final int code;

    FileType3(int code) {
        this.code = code;
    }

    /** @return the value on the wire */
    public int code() {
        return code;
    }

    /** @return the type of {@code code}, or {@code null} if RFC 1813 defines none */
    public static FileType3 of(int code) {
        return code >= 1 && code <= 7 ? values()[code - 1] : null;
    }
}
