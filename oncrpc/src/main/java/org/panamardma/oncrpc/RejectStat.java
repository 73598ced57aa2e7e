package org.panamardma.oncrpc;

/** Why a call was rejected: {@code reject_stat} of RFC 5531 section 9. */
public enum RejectStat {
    /** The RPC version number was not 2; the supported range follows. */
    RPC_MISMATCH(0),
    /** The caller could not be authenticated; an {@link AuthStat} follows. */
    AUTH_ERROR(1);

    private final int value;

    RejectStat(int value) {
        this.value = value;
    }

    /** {@return the wire value} */
    public int value() {
        return value;
    }

    /**
     * {@return the constant for a wire value, or {@code null} if RFC 5531 defines none}
     *
     * @param value the {@code reject_stat} word as received
     */
    public static RejectStat fromValue(int value) {
        return value >= 0 && value < values().length ? values()[value] : null;
    }
}
