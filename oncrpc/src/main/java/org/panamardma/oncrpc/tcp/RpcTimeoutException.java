package org.panamardma.oncrpc.tcp;

import java.time.Duration;

/**
 * No reply arrived within the call's timeout. The call may or may not have run on the server; a reply that
 * arrives later is dropped. The connection stays open for other calls.
 */
public final class RpcTimeoutException extends RpcException {
    private static final long serialVersionUID = 1L;

    /**
     * The timeout that expired.
     */
    private final Duration timeout;

    /**
     * No reply to {@code call} came within {@code timeout}; the call may still run on the server.
     *
     * @param call the call, as the client names it
     * @param timeout the timeout that expired
     */
    public RpcTimeoutException(String call, Duration timeout) {
        super("no reply to " + call + " within " + timeout.toMillis() + " ms");
        this.timeout = timeout;
    }

    /** {@return the timeout that expired} */
    public Duration timeout() {
        return timeout;
    }
}
