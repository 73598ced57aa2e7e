package org.panamardma.oncrpc.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Objects;

/** A client's TCP connection, made within a deadline so that a server that never answers cannot hold it. */
final class ClientSocket {
    private ClientSocket() {}

    /**
     * Checks a connect timeout: positive (zero would mean no timeout to {@link Socket#connect(java.net.SocketAddress,
     * int)}) and at most {@link Integer#MAX_VALUE} ms.
     *
     * @return the timeout in milliseconds, rounded up
     */
    static int timeoutMillis(Duration timeout) {
        Objects.requireNonNull(timeout, "connectTimeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("connect timeout " + timeout + " is not positive");
        }
        long millis = timeout.plusNanos(999_999).toMillis();
        if (millis > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("connect timeout " + timeout + " exceeds " + Integer.MAX_VALUE + " ms");
        }
        return (int) millis;
    }

    /**
     * A socket connected to {@code server} (TCP_NODELAY, bound to {@code local} first if given).
     *
     * @throws ConnectTimeoutException if the connection is not made within {@code timeout}
     * @throws IOException if it cannot be bound there or is refused
     */
    static Socket connect(InetSocketAddress server, InetSocketAddress local, Duration timeout) throws IOException {
        int millis = timeoutMillis(timeout);
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            if (local != null) {
                socket.setReuseAddress(true); // a port whose last connection is in TIME_WAIT may serve another peer
                socket.bind(local);
            }
            socket.connect(server, millis);
            return socket;
        } catch (SocketTimeoutException e) {
            socket.close();
            throw new ConnectTimeoutException(server, timeout, e);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }
}
