package org.panamardma.verbs.connection;

import org.panamardma.verbs.RdmaException;

/**
 * The request could not be done because its {@link RdmaConnection} is closed, was disconnected by the peer, lost its
 * device, or its queue pair went to the error state (then the cause is the first failed completion). Requests
 * flushed by the queue pair ({@code IBV_WC_WR_FLUSH_ERR}) fail with this exception, the flush completion as cause.
 */
public class ConnectionClosedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The connection cannot take the request; {@code message} says why.
     *
     * @param message names the connection and why it no longer takes requests (closed, disconnected, failed)
     */
    public ConnectionClosedException(String message) {
        super(message);
    }

    /**
     * The connection cannot take the request, because of {@code cause}.
     *
     * @param message names the connection and the request refused
     * @param cause   the failure that ended the connection (a failed completion, a device removal...)
     */
    public ConnectionClosedException(String message, Throwable cause) {
        super(message);
        initCause(cause);
    }
}
