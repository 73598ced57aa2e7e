package org.panamardma.verbs.connection;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.EventChannel;

/** Connects to an {@link RdmaServer} (or any rdma_cm listener) and returns the connection. */
public final class RdmaClient {
    private RdmaClient() {}

    /** {@link #connect(InetSocketAddress, ConnectionOptions)} with {@link ConnectionOptions#DEFAULTS}. */
    public static RdmaConnection connect(InetSocketAddress server) throws RdmaException {
        return connect(server, ConnectionOptions.DEFAULTS);
    }

    /**
     * Resolves {@code server}'s address and route, makes the connection's resources on the device rdma_cm picks,
     * posts its receive buffers, connects and waits for ESTABLISHED (each step up to the options' timeout). The
     * connection has its own rdma_cm event channel, watched by its poller thread.
     *
     * @throws RdmaException the step that failed (REJECTED, UNREACHABLE, timeout...); nothing is left open
     */
    public static RdmaConnection connect(InetSocketAddress server, ConnectionOptions options) throws RdmaException {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(options, "options");
        EventChannel events = EventChannel.create();
        RdmaConnection.Resources res = new RdmaConnection.Resources(options);
        try {
            CmConnector.Connection c = CmConnector.connect(events, server, options.parameters(), res::create,
                    options.timeout());
            RdmaConnection connection = new RdmaConnection(c.id(), res, events, null);
            connection.peerPrivateData(c.peerPrivateData());
            connection.start();
            return connection;
        } catch (RdmaException | RuntimeException | Error e) {
            events.close();
            res.close();
            throw e;
        }
    }
}
