package org.panamardma.oncrpc.tcp;

import java.io.IOException;

/**
 * A call that did not produce results: the base of {@link RpcReplyException} (the server answered with an error
 * status), {@link RpcTimeoutException} and {@link RpcConnectionException}; used as is when a call's arguments do
 * not encode or its results do not decode.
 */
public class RpcException extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with no exception behind it.
     *
     * @param message what went wrong, naming the call
     */
    public RpcException(String message) {
        super(message);
    }

    /**
     * A failure caused by another exception: the arguments' encoder, the results' decoder or the transport.
     *
     * @param message what went wrong, naming the call
     * @param cause the underlying failure
     */
    public RpcException(String message, Throwable cause) {
        super(message, cause);
    }
}
