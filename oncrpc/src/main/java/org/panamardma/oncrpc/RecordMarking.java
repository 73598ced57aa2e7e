package org.panamardma.oncrpc;

/**
 * The record marking standard for RPC over byte streams such as TCP (RFC 5531 section 11): a record is one or more
 * fragments, each a 4-byte big-endian header, whose top bit marks the last fragment of the record and whose low 31
 * bits give the fragment's data length, followed by that many bytes.
 */
public final class RecordMarking {
    /** Size of a fragment header. */
    public static final int HEADER_SIZE = 4;
    /** The last-fragment bit of a header. */
    public static final int LAST_FRAGMENT = 0x8000_0000;
    /** The largest fragment length a header can carry: 2<sup>31</sup>-1. */
    public static final int MAX_FRAGMENT_LENGTH = 0x7FFF_FFFF;

    private RecordMarking() {}

    /**
     * {@return the header word of a fragment}
     *
     * @param last whether this fragment ends the record
     * @param length the fragment's data length, 0 to {@link #MAX_FRAGMENT_LENGTH}
     * @throws IllegalArgumentException if {@code length} is negative (above {@link #MAX_FRAGMENT_LENGTH} as an int)
     */
    public static int header(boolean last, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative fragment length " + length);
        }
        return last ? (length | LAST_FRAGMENT) : length;
    }

    /**
     * {@return whether a header word marks the last fragment}
     *
     * @param header a fragment header word as received
     */
    public static boolean isLast(int header) {
        return (header & LAST_FRAGMENT) != 0;
    }

    /**
     * {@return the fragment length a header word carries}
     *
     * @param header a fragment header word as received
     */
    public static int length(int header) {
        return header & MAX_FRAGMENT_LENGTH;
    }
}
