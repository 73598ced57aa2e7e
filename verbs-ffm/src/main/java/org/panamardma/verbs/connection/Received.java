package org.panamardma.verbs.connection;

/**
 * A message {@link RdmaConnection#receive()} took: a copy of its bytes (the receive buffer is posted again before the
 * future completes) and the immediate data, if the sender attached some.
 */
public record Received(byte[] data, boolean hasImmediate, int immediate) {
    /** The number of bytes received. */
    public int length() {
        return data.length;
    }
}
