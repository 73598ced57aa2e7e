package org.panamardma.verbs.connection;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.TransportType;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmEventException;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.cm.StreamStartProbe;
import org.panamardma.verbs.connection.agent.AgentMode;
import org.panamardma.verbs.connection.agent.Handshake;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Connects to an {@link RdmaServer} (or any rdma_cm listener) and returns the connection. */
public final class RdmaClient {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaClient.class);
    /** Tries of a connect that ends in CONNECT_ERROR (see {@link #connect(InetSocketAddress, ConnectionOptions)}). */
    static final int CONNECT_ATTEMPTS = 3;

    private RdmaClient() {}

    /**
     * {@link #connect(InetSocketAddress, ConnectionOptions)} with {@link ConnectionOptions#DEFAULTS}.
     *
     * @param server the server's IP address and port
     * @return the established connection; the caller closes it
     * @throws RdmaException the step that failed (REJECTED, UNREACHABLE, timeout...); nothing is left open
     */
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
     * handshake as CONNECT_ERROR with status -EINVAL, among them a server that sends its first message at once
     * (drivers/infiniband/sw/siw/siw_cm.c, siw_recv_mpa_rr: "peer sent extra data" when that message comes in the
     * same read as the MPA reply; see {@link StreamStartProbe}). It was seen about once in a few hundred connects
     * of the test suite, on a fresh port with the listener up. A connect that fails with
     * EADDRINUSE is tried again the same way: on iWARP the rdma_cm port space is not the TCP stack's, and Soft-iWARP
     * binds its kernel TCP socket to the port rdma_cm chose for the id (siw_cm.c, kernel_bindconnect), which fails
     * when an ordinary TCP socket of the host holds that port (seen once in CI: a connect to knfsd while NFS over
     * TCP ran); a new id gets a new port. On an iWARP device a connect that ends in UNREACHABLE with status
     * -ETIMEDOUT is tried again the same way: iWARP has no connection manager retries (RoCE's CM sends its REQ up to
     * 15 times before it says UNREACHABLE), only the initiator's one timer on the MPA reply (Soft-iWARP: 10 s,
     * siw_cm.h MPAREQ_TIMEOUT), so a server that is slow to accept, not one that is gone, ends the attempt; a host
     * nobody answers for fails address resolution before this. The kernel's own RPC-over-RDMA client does the same:
     * it connects again. Each retry is logged; the last failure is thrown with the earlier ones attached as
     * suppressed exceptions.
     *
     * <p>On Soft-iWARP the connection is returned only once a zero-length READ from the server has been answered
     * (when the server granted READ resources): {@link StreamStartProbe} says why (siw can leave the first bytes of
     * either side unread until the same side sends more) and how.
     *
     * @param server  the server's IP address and port
     * @param options queue depths, buffer sizes, connection parameters, the steps' timeout, the agent
     * @return the established connection, its receive buffers posted and its poller running; the caller closes it
     * @throws RdmaException the step that failed (REJECTED, UNREACHABLE, timeout...); nothing is left open
     */
    public static RdmaConnection connect(InetSocketAddress server, ConnectionOptions options) throws RdmaException {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(options, "options");
        List<RdmaException> earlier = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            Attempt tried = new Attempt();
            try {
                return connectOnce(server, options, tried);
            } catch (RdmaException e) {
                if (!worthAnotherTry(e, tried.iwarp) || attempt == CONNECT_ATTEMPTS) {
                    earlier.forEach(e::addSuppressed);
                    throw e;
                }
                earlier.add(e);
                LOG.info("connect to " + server + ": " + e.getMessage()
                        + (tried.iwarp && unreachableByTimeout(e)
                                ? " (iWARP: the server did not answer the MPA request in"
                                        + " time; its device has no connection manager retries)"
                                : CmConnector.portChosenWasTaken(e)
                                        ? " (the local port rdma_cm chose is held by a TCP socket)"
                                        : " (a connection that could not be" + " set up, not a refusal)")
                        + "; trying again, attempt "
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

    /**
     * CONNECT_ERROR, a local port rdma_cm chose that the transport could not bind, or on iWARP ({@code iwarp}) the
     * MPA reply timer running out (UNREACHABLE, -ETIMEDOUT): see connect.
     */
    static boolean worthAnotherTry(RdmaException e, boolean iwarp) {
        if (e instanceof CmEventException cm) {
            return cm.event().type() == CmEventType.CONNECT_ERROR || iwarp && unreachableByTimeout(e);
        }
        return CmConnector.portChosenWasTaken(e);
    }

    private static boolean unreachableByTimeout(RdmaException e) {
        return e instanceof CmEventException cm
                && cm.event().type() == CmEventType.UNREACHABLE
                && cm.errno() == Errno.ETIMEDOUT;
    }

    /** What one connect attempt learnt before it failed: whether rdma_cm bound it to an iWARP device. */
    private static final class Attempt {
        boolean iwarp;
    }

    private static RdmaConnection connectOnce(InetSocketAddress server, ConnectionOptions options, Attempt tried)
            throws RdmaException {
        EventChannel events = EventChannel.create();
        ConnectionResources res = new ConnectionResources(options);
        RdmaConnection connection;
        boolean probe;
        try {
            boolean offer = options.agent() != AgentMode.OFF;
            CmConnector.Connection c = CmConnector.connect(
                    events,
                    server,
                    offer
                            ? options.parameters()
                                    .withPrivateData(Handshake.append(
                                            options.parameters().privateData(),
                                            options.agentDepth(),
                                            options.agentDepth()))
                            : options.parameters(),
                    id -> {
                        tried.iwarp = id.context().transportType() == TransportType.IWARP;
                        return res.create(id);
                    },
                    options.timeout());
            probe = StreamStartProbe.needed(c.id().context()) && StreamStartProbe.possible(c.established());
            // the server's answer to the offer (Handshake): the agent runs where it answered with its own trailer
            Handshake.Parsed accepted = offer ? Handshake.parse(c.peerPrivateData()) : null;
            connection = new RdmaConnection(
                    c.id(),
                    res,
                    events,
                    null,
                    accepted == null ? null : Handshake.negotiate(options.agentDepth(), accepted.offer()));
            connection.peerPrivateData(accepted == null ? c.peerPrivateData() : accepted.applicationData());
            connection.start();
        } catch (RdmaException | RuntimeException | Error e) {
            events.close();
            res.close();
            throw e;
        }
        // from here on the connection owns the resources and the event channel: closing it frees them
        try {
            if (probe) {
                confirmStreamStart(connection, server, options.timeout());
            }
            return connection;
        } catch (RdmaException | RuntimeException | Error e) {
            connection.close();
            throw e;
        }
    }

    /**
     * {@link StreamStartProbe}: zero-length READs until one is answered, the next sent after each wait without an
     * answer (at most {@link StreamStartProbe#MAX_PROBES}, then the wait goes on to {@code timeout}). Probes still
     * outstanding complete on the poller like any request.
     */
    static void confirmStreamStart(RdmaConnection connection, InetSocketAddress server, Duration timeout)
            throws RdmaException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long wait = StreamStartProbe.FIRST_WAIT_NANOS;
        List<CompletableFuture<Void>> probes = new ArrayList<>();
        while (true) {
            if (probes.size() < StreamStartProbe.MAX_PROBES) {
                probes.add(connection.readNothing());
            }
            long left = deadline - System.nanoTime();
            try {
                CompletableFuture.anyOf(probes.toArray(CompletableFuture[]::new))
                        .get(Math.max(1, Math.min(wait, left)), TimeUnit.NANOSECONDS);
                if (probes.size() > 1) {
                    LOG.info("connect to " + server + ": stream start probe " + probes.size() + " answered after "
                            + (System.nanoTime() - start) / 1_000_000 + " ms (Soft-iWARP may leave the first bytes "
                            + "of a connection unread until more follow)");
                }
                return;
            } catch (TimeoutException e) {
                if (deadline - System.nanoTime() <= 0) {
                    throw new RdmaException(
                            "connect to " + server + ": none of " + probes.size()
                                    + " zero-length READs was answered in " + (System.nanoTime() - start) / 1_000_000
                                    + " ms",
                            Errno.ETIMEDOUT);
                }
                wait = StreamStartProbe.nextWaitNanos(wait);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                throw cause instanceof RdmaException r
                        ? r
                        : new RdmaException(
                                "connect to " + server + ": the zero-length READ failed: " + cause, Errno.EIO);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RdmaException("connect to " + server + ": interrupted", Errno.EINTR);
            }
        }
    }
}
