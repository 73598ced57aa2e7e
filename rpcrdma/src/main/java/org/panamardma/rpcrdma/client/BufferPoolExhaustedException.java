package org.panamardma.rpcrdma.client;

/**
 * A {@link RegisteredBufferPool} had no free buffer of the size asked for and could not register more without
 * going over its maximum of pinned bytes (within the deadline, for a waiting allocation).
 */
public final class BufferPoolExhaustedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BufferPoolExhaustedException(String message) {
        super(message);
    }
}
