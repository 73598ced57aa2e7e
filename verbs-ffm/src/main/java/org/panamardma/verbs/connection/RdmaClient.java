package org.panamardma.verbs.connection;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmEventException;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.EventChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Connects to an {@link RdmaServer} (or any rdma_cm listener) and returns the connection. */
public final class RdmaClient {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaClient.class);
    /** Tries of a connect that ends in CONNECT_ERROR (see {@link #connect(InetSocketAddress, ConnectionOptions)}). */
    static final int CONNECT_ATTEMPTS = 3;

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
     * <p>A connect that ends in RDMA_CM_EVENT_CONNECT_ERROR is tried again, up to {@value #CONNECT_ATTEMPTS} times
     * in all, each time with a new rdma_cm id (a new local port) and new resources: that event says the connection
     * could not be set up, not that the server refused it (REJECTED) or cannot be reached (UNREACHABLE), and on
     * iWARP it has a transient cause. Soft-iWARP reports any failure of the MPA exchange that follows the TCP
     * handshake as CONNECT_ERROR with status -EINVAL, among them the server's end of the TCP stream closing before
     * its MPA reply was read (drivers/infiniband/sw/siw/siw_cm.c, siw_proc_mpareply). It was seen about once in a
     * few hundred connects of the test suite, on a fresh port with the listener up. A connect that fails with
     * EADDRINUSE is tried again the same way: on iWARP the rdma_cm port space is not the TCP stack's, and Soft-iWARP
     * binds its kernel TCP socket to the port rdma_cm chose for the id (siw_cm.c, kernel_bindconnect), which fails
     * when an ordinary TCP socket of the host holds that port (seen once in CI: a connect to knfsd while NFS over
     * TCP ran); a new id gets a new port. Each retry is logged; the last failure is thrown with the earlier ones
     * attached as suppressed exceptions.
     *
     * @throws RdmaException the step that failed (REJECTED, UNREACHABLE, timeout...); nothing is left open
     */
    public static RdmaConnection connect(InetSocketAddress server, ConnectionOptions options) throws RdmaException {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(options, "options");
        List<RdmaException> earlier = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            try {
                return connectOnce(server, options);
            } catch (RdmaException e) {
                if (!worthAnotherTry(e) || attempt == CONNECT_ATTEMPTS) {
                    earlier.forEach(e::addSuppressed);
                    throw e;
                }
                earlier.add(e);
                LOG.info("connect to " + server + ": " + e.getMessage()
                        + " (a connection that could not be set up, not a refusal); trying again, attempt "
                        + (attempt + 1) + " of " + CONNECT_ATTEMPTS);
                try {
                    Thread.sleep(50L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** CONNECT_ERROR, or a local port rdma_cm chose that the transport could not bind (see connect). */
    static boolean worthAnotherTry(RdmaException e) {
        if (e instanceof CmEventException cm) {
            return cm.event().type() == CmEventType.CONNECT_ERROR;
        }
        return e.errno() == Errno.EADDRINUSE;
    }

    private static RdmaConnection connectOnce(InetSocketAddress server, ConnectionOptions options)
            throws RdmaException {
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
