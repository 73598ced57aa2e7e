package org.panamardma.verbs.connection;

import org.panamardma.verbs.RdmaException;

/**
 * The request could not be done because its {@link RdmaConnection} is closed, was disconnected by the peer, lost its
 * device, or its queue pair went to the error state (then the cause is the first failed completion). Requests
 * flushed by the queue pair ({@code IBV_WC_WR_FLUSH_ERR}) fail with this exception, the flush completion as cause.
 */
public class ConnectionClosedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** The connection cannot take the request; {@code message} says why. */
    public ConnectionClosedException(String message) {
        super(message);
    }

    /** The connection cannot take the request, because of {@code cause}. */
    public ConnectionClosedException(String message, Throwable cause) {
        super(message);
        initCause(cause);
    }
}
