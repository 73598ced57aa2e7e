package org.panamardma.xdr;

/**
 * Malformed or out-of-bounds XDR: a decode that would read past the end of its segment, a count or length over
 * its declared maximum, a value outside its type (a boolean that is neither 0 nor 1, an unknown enum value), or
 * an encode that does not fit its segment.
 *
 * <p>Unchecked on purpose: XDR errors are data errors, found deep inside nested decode routines (an argument
 * decoder inside a procedure inside a dispatcher) and handled in one place by the transport or dispatcher, which
 * turns them into {@code GARBAGE_ARGS}, {@code ERR_CHUNK} or a dropped message. A checked exception would have
 * to be declared by every reader and writer lambda for no gain. Never wraps an {@link IndexOutOfBoundsException}:
 * every bound is checked before memory is touched.
 */
public final class XdrException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What kind of XDR fault this is, for callers that map faults to protocol replies. */
    public enum Reason {
        /** The data ends before the item does (decode). */
        TRUNCATED,
        /** The item does not fit the space left in the encoder's segment (encode). */
        NO_SPACE,
        /** A count or length exceeds the maximum declared for it, or a fixed size does not match. */
        LIMIT_EXCEEDED,
        /** A value that its XDR type does not allow: a boolean other than 0/1, an unknown enum or union arm. */
        INVALID_VALUE,
        /** Padding bytes that are not zero while the decoder requires zero padding (RFC 4506 section 4.9). */
        NONZERO_PADDING
    }

    /**
     * What kind of fault this is.
     */
    private final Reason reason;
    /**
     * The byte offset of the item at fault, from the start of the coder's segment.
     */
    private final long offset;

    /**
     * An XDR fault at {@code offset}.
     *
     * @param reason what is wrong
     * @param offset the byte offset, from the start of the encoder's or decoder's segment, of the item at fault
     * @param detail what was being coded and the values involved
     */
    public XdrException(Reason reason, long offset, String detail) {
        super(detail + " (at offset " + offset + ", " + reason + ")");
        this.reason = reason;
        this.offset = offset;
    }

    /** {@return what kind of fault this is} */
    public Reason reason() {
        return reason;
    }

    /** {@return the byte offset of the item at fault, from the start of the coder's segment} */
    public long offset() {
        return offset;
    }
}
