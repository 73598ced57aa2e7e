package org.panamardma.verbs.connection;

/**
 * A message {@link RdmaConnection#receive()} took: a copy of its bytes (the receive buffer is posted again before the
 * future completes), the immediate data, if the sender attached some, and the key the sender invalidated, if it sent
 * with invalidate ({@code IBV_WC_WITH_INV}: that key of ours is invalid from now on).
 */
public record Received(byte[] data, boolean hasImmediate, int immediate, boolean hasInvalidated, int invalidatedRkey) {
    /** A message without invalidation. */
    public Received(byte[] data, boolean hasImmediate, int immediate) {
        this(data, hasImmediate, immediate, false, 0);
    }

    /** The number of bytes received. */
    public int length() {
        return data.length;
    }
}
