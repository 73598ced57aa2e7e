package org.panamardma.nfs;

/** {@code ftype3} (RFC 1813 section 2.6). */
public enum FileType3 {
    /** A regular file. */
    NF3REG(1),
    /** A directory. */
    NF3DIR(2),
    /** A block special device. */
    NF3BLK(3),
    /** A character special device. */
    NF3CHR(4),
    /** A symbolic link. */
    NF3LNK(5),
    /** A socket. */
    NF3SOCK(6),
    /** A named pipe. */
    NF3FIFO(7);

    private final int code;

    FileType3(int code) {
        this.code = code;
    }

    /** {@return the value on the wire} */
    public int code() {
        return code;
    }

    /**
     * {@return the type of {@code code}, or {@code null} if RFC 1813 defines none}
     *
     * @param code the {@code ftype3} word as received
     */
    public static FileType3 of(int code) {
        return code >= 1 && code <= 7 ? values()[code - 1] : null;
    }
}
