package org.panamardma.verbs.connection;

/**
 * A message {@link RdmaConnection#receive()} took: a copy of its bytes (the receive buffer is posted again before the
 * future completes), the immediate data, if the sender attached some, and the key the sender invalidated, if it sent
 * with invalidate ({@code IBV_WC_WITH_INV}: that key of ours is invalid from now on).
 *
 * @param data            the message's bytes, copied: the caller owns the array
 * @param hasImmediate    whether the sender attached immediate data ({@code IBV_WC_WITH_IMM})
 * @param immediate       the immediate data; 0 without
 * @param hasInvalidated  whether the sender sent with invalidate
 * @param invalidatedRkey the key of ours the device invalidated; 0 without
 */
public record Received(byte[] data, boolean hasImmediate, int immediate, boolean hasInvalidated, int invalidatedRkey) {
    /**
     * A message without invalidation.
     *
     * @param data         the message's bytes, copied: the caller owns the array
     * @param hasImmediate whether the sender attached immediate data
     * @param immediate    the immediate data; 0 without
     */
    public Received(byte[] data, boolean hasImmediate, int immediate) {
        this(data, hasImmediate, immediate, false, 0);
    }

    /** {@return the number of bytes received} */
    public int length() {
        return data.length;
    }
}
