package org.panamardma.oncrpc.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TcpRpcClient#connect} is bounded: a server that never answers the SYN fails the connect with a
 * {@link ConnectTimeoutException} after the timeout instead of the OS's SYN retries (about 127 s on Linux). The
 * server that never answers is a loopback listener whose accept queue is full: Linux drops a SYN to it
 * ({@code tcp_conn_request}: {@code sk_acceptq_is_full}), exactly what a black-holed address does, and no packet
 * leaves the host. Before this change the connect had no timeout: the test's connect waited the 127 s.
 */
class TcpConnectTimeoutTest {
    private final List<Socket> fillers = new ArrayList<>();
    private ServerSocket listener;

    @AfterEach
    void closeAll() throws IOException {
        for (Socket s : fillers) {
            s.close();
        }
        if (listener != null) {
            listener.close();
        }
    }

    /** A loopback listener that never accepts, its accept queue (backlog 1: two connections) filled. */
    private InetSocketAddress silentServer() throws IOException {
        listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        InetSocketAddress address = (InetSocketAddress) listener.getLocalSocketAddress();
        for (int i = 0; i < 64; i++) {
            Socket s = new Socket();
            try {
                // on loopback a queue with room answers at once: the generous timeout only absorbs a starved host
                s.connect(address, 2_000);
                fillers.add(s);
            } catch (SocketTimeoutException full) {
                s.close();
                return address; // this SYN was dropped: the queue is full
            }
        }
        throw new IllegalStateException("64 connections and the accept queue of backlog 1 is not full");
    }

    @Test
    void aServerThatNeverAnswersFailsTheConnectWithATypedTimeout() throws IOException {
        InetSocketAddress server = silentServer();
        Duration timeout = Duration.ofMillis(300);
        ConnectTimeoutException e = assertThrows(
                ConnectTimeoutException.class,
                () -> TcpRpcClient.connect(server, null, TcpRpcClient.DEFAULT_MAX_RECORD_SIZE, timeout));
        assertEquals(server, e.server());
        assertEquals(timeout, e.timeout());
        assertTrue(e.getMessage().contains(server.toString()) && e.getMessage().contains("300 ms"), e.getMessage());
        assertInstanceOf(SocketTimeoutException.class, e, "callers catching SocketTimeoutException still see it");
    }

    @Test
    void aRefusedConnectionIsARefusalNotATimeout() throws IOException {
        InetSocketAddress closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = (InetSocketAddress) s.getLocalSocketAddress();
        }
        IOException e = assertThrows(
                IOException.class, () -> TcpRpcClient.connect(closed, null, 1 << 20, Duration.ofSeconds(30)));
        assertInstanceOf(ConnectException.class, e, e.toString());
    }

    @Test
    void aTimeoutThatIsNotPositiveIsRefusedBeforeAnySocket() {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
        assertThrows(IllegalArgumentException.class, () -> TcpRpcClient.connect(any, null, 1 << 20, Duration.ZERO));
        assertThrows(
                IllegalArgumentException.class, () -> TcpRpcClient.connect(any, null, 1 << 20, Duration.ofMillis(-1)));
        assertThrows(
                IllegalArgumentException.class,
                () -> TcpRpcClient.connect(any, null, 1 << 20, Duration.ofDays(30)),
                "past Integer.MAX_VALUE ms");
        assertThrows(NullPointerException.class, () -> TcpRpcClient.connect(any, null, 1 << 20, null));
    }

    @Test
    void theDefaultBoundIsTenSeconds() {
        assertEquals(Duration.ofSeconds(10), TcpRpcClient.DEFAULT_CONNECT_TIMEOUT);
        assertEquals(1, ClientSocket.timeoutMillis(Duration.ofNanos(1)), "a sub-millisecond timeout rounds up");
    }
}
