package org.panamardma.oncrpc.tcp;

import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * No TCP connection to the server within the client's connect timeout: nothing answered the SYN (a server down
 * behind a firewall that drops rather than refuses, a black-holed address, a listener whose accept queue is full).
 * Unbounded, Linux's {@code connect(2)} retransmits the SYN {@code net.ipv4.tcp_syn_retries} times (6 by default,
 * about 127 s) before giving up. A {@link SocketTimeoutException}, so that code catching that or
 * {@link java.io.IOException} sees it as before; a refused connection is a {@link java.net.ConnectException}.
 */
public final class ConnectTimeoutException extends SocketTimeoutException {
    private static final long serialVersionUID = 1L;

    /** The server that did not answer. */
    private final InetSocketAddress server;

    /** The timeout that expired. */
    private final Duration timeout;

    /**
     * No connection to {@code server} within {@code timeout}.
     *
     * @param server the server that did not answer
     * @param timeout the connect timeout that expired
     * @param cause the socket's own timeout, for its stack
     */
    public ConnectTimeoutException(InetSocketAddress server, Duration timeout, Throwable cause) {
        super("no TCP connection to " + server + " within " + timeout.toMillis()
                + " ms (the connect timeout): the server did not answer");
        this.server = server;
        this.timeout = timeout;
        initCause(cause);
    }

    /** {@return the server that did not answer} */
    public InetSocketAddress server() {
        return server;
    }

    /** {@return the connect timeout that expired} */
    public Duration timeout() {
        return timeout;
    }
}
