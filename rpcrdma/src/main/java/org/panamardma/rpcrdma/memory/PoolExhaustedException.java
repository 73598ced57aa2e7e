package org.panamardma.rpcrdma.memory;

/**
 * A {@link BufferPool} had no free buffer of the size asked for and could not make more without going over its
 * maximum of pinned bytes (within the deadline, for a waiting lease).
 */
public final class PoolExhaustedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what was asked and what the pool holds */
    public PoolExhaustedException(String message) {
        super(message);
    }
}
