package org.panamardma.oncrpc;

/** Why an accepted call did or did not run: {@code accept_stat} of RFC 5531 section 9. */
public enum AcceptStat {
    /** The procedure ran; its results follow. */
    SUCCESS(0),
    /** The remote program is not exported. */
    PROG_UNAVAIL(1),
    /** The program does not support the requested version; the supported range follows. */
    PROG_MISMATCH(2),
    /** The program does not support the requested procedure. */
    PROC_UNAVAIL(3),
    /** The procedure could not decode its arguments. */
    GARBAGE_ARGS(4),
    /** A server-side error, such as a memory allocation failure. */
    SYSTEM_ERR(5);

    private final int value;

    AcceptStat(int value) {
        this.value = value;
    }

    /** {@return the wire value} */
    public int value() {
        return value;
    }

    /**
     * {@return the constant for a wire value, or {@code null} if RFC 5531 defines none}
     *
     * @param value the {@code accept_stat} word as received
     */
    public static AcceptStat fromValue(int value) {
        return value >= 0 && value < values().length ? values()[value] : null;
    }
}
