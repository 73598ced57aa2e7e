package org.panamardma.nfs;

/** {@code stable_how}: how durably WRITE commits the data before replying (RFC 1813 section 3.3.7). */
public enum StableHow {
    /** The server may reply before the data is on stable storage; COMMIT makes it so. */
    UNSTABLE,
    /** The data, but not necessarily the metadata, is on stable storage before the reply. */
    DATA_SYNC,
    /** Data and metadata are on stable storage before the reply. */
    FILE_SYNC;

    /** {@return the value on the wire (0, 1, 2)} */
    public int code() {
        return ordinal();
    }

    /**
     * {@return the value of {@code code}, or {@code null}}
     *
     * @param code the {@code stable_how} word as received
     */
    public static StableHow of(int code) {
        return code >= 0 && code <= 2 ? values()[code] : null;
    }
}
