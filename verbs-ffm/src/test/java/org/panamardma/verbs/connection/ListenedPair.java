package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A server listening on one address, a client connected to it and the server's side of that connection: what a
 * device test of the connection layer or of the atomics agent opens first. If any step fails, what the earlier
 * steps opened is closed before the failure is thrown, so a failed set-up leaks no listener or queue pair into the
 * tests that follow.
 *
 * @param server the listener
 * @param client the client's connection
 * @param served the server's side of it
 */
public record ListenedPair(RdmaServer server, RdmaConnection client, RdmaConnection served) implements AutoCloseable {
    /**
     * Listens on {@code address}, connects a client to it and accepts that client.
     *
     * @param address where the server listens
     * @param serverOptions the server's options
     * @param clientOptions the client's options
     * @param acceptWait how long the server waits for the client to arrive
     * @return the three, all open
     * @throws Exception what listening, connecting or accepting threw, or an {@link AssertionError} if nothing
     *     arrived within {@code acceptWait}
     */
    public static ListenedPair open(
            InetSocketAddress address,
            ConnectionOptions serverOptions,
            ConnectionOptions clientOptions,
            Duration acceptWait)
            throws Exception {
        RdmaServer server = RdmaServer.listen(address, serverOptions);
        RdmaConnection client = null;
        try {
            client = RdmaClient.connect(address, clientOptions);
            RdmaConnection served = server.accept(acceptWait);
            assertNotNull(served, "the server accepted no connection");
            return new ListenedPair(server, client, served);
        } catch (Exception | Error e) {
            if (client != null) {
                client.close();
            }
            server.close();
            throw e;
        }
    }

    /** Closes the client's connection, then the server (and with it the served side). */
    @Override
    public void close() {
        try {
            client.close();
        } finally {
            server.close();
        }
    }
}
