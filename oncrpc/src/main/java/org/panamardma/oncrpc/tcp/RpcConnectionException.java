package org.panamardma.oncrpc.tcp;

/**
 * The connection closed or broke before the call's reply arrived (or before the call could be sent): every call
 * pending on the connection fails with this, and later calls on it fail at once. The call may or may not have run.
 */
public final class RpcConnectionException extends RpcException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure of the connection with no I/O exception behind it (closed by the peer, or by {@link
     * org.panamardma.oncrpc.RpcClient#close()}).
     *
     * @param message what happened to the connection
     */
    public RpcConnectionException(String message) {
        super(message);
    }

    /**
     * A failure of the connection caused by an I/O exception.
     *
     * @param message what happened to the connection
     * @param cause the I/O failure
     */
    public RpcConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
