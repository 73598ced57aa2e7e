package org.panamardma.verbs.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.Verb;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rdma_cm steps of one connection, done synchronously: for tests and simple programs. Each step waits for its
 * event with the given timeout and fails with a {@link CmEventException} carrying the event that came instead
 * (REJECTED with the peer's status and private data, UNREACHABLE, ADDR_ERROR...) or a {@link CmTimeoutException}.
 * On failure the id is closed (with its queue pair).
 */
public final class CmConnector {
    private static final Logger LOG = LoggerFactory.getLogger(CmConnector.class);

    private CmConnector() {}

    /**
     * The longest single address resolution {@link #resolveAddress} asks the kernel for. The kernel's rdma_cm
     * (drivers/infiniband/core/addr.c, rdma_resolve_ip and process_one_req) misses a neighbour answer that arrives
     * while it is still queueing the request: the request then waits for its whole timeout, and only at the end
     * looks at the (by then valid) neighbour entry again. On a veth pair the ARP answer always comes that fast, so
     * every resolution that starts without a valid neighbour entry takes the full timeout: measured in the testbed
     * with rping (2 s timeout) after {@code ip neigh flush}, 2.2 s against 0.16 s. Short attempts bound that cost
     * to one attempt; one second is also the kernel's own ARP retransmission time, so a lost request or answer is
     * retried about as often as the kernel probes.
     */
    static final Duration RESOLVE_ATTEMPT = Duration.ofSeconds(1);

    /**
     * Makes the queue pair of a connection on the id's device: allocate (or reuse) a PD and CQs on
     * {@code id.context()}, then {@code return id.createQueuePair(pd, options)}.
     */
    @FunctionalInterface
    public interface QueuePairFactory {
        /**
         * Creates the queue pair of {@code id} on its device context (the id has its device by then).
         *
         * @param id the id, resolved (client) or from a CONNECT_REQUEST (server): its {@link CmId#context()} is the
         *           device
         * @return the QP, made with {@link CmId#createQueuePair} so that the id owns it
         * @throws RdmaException if a resource cannot be made; the connector then closes the id
         */
        QueuePair create(CmId id) throws RdmaException;
    }

    /**
     * An established connection: the id (close it to disconnect and free everything of it), its queue pair, the
     * CONNECT_REQUEST it was accepted from (server side; null on the client) and the ESTABLISHED event (on the
     * client with the server's accept private data).
     *
     * @param id          the connection's id; closing it disconnects and frees the queue pair
     * @param queuePair   the id's queue pair, ready to post
     * @param request     the CONNECT_REQUEST (server side), or null on the client
     * @param established the ESTABLISHED event, which on the client carries the server's accept private data
     */
    public record Connection(CmId id, QueuePair queuePair, CmEvent request, CmEvent established)
            implements AutoCloseable {
        /**
         * {@return a copy of the private data the peer sent: the client's connect data on the server, the server's accept
         * data on the client (InfiniBand pads it with zeros)}
         */
        public byte[] peerPrivateData() {
            return (request != null ? request : established).privateData();
        }

        /** Closes the id and its queue pair (without waiting for DISCONNECTED). */
        @Override
        public void close() {
            id.close();
        }
    }

    /**
     * Client: a new id on {@code channel}, address and route resolution to {@code server}, the queue pair from
     * {@code factory}, connect with {@code parameters}, ESTABLISHED. Each step may take up to {@code timeout}.
     *
     * @param channel    the event channel the new id's events arrive on; nobody else may take this id's events
     *                   meanwhile
     * @param server     the server's IP address and port
     * @param parameters resources, retries and private data of the connect request
     * @param factory    makes the queue pair once the route is resolved
     * @param timeout    the longest wait for each step's event
     * @return the established connection; the caller closes it
     * @throws RdmaException a {@link CmEventException} carrying the event that came instead (REJECTED, UNREACHABLE,
     *                       ADDR_ERROR...), a {@link CmTimeoutException}, or a failed verb's errno; the id is closed
     *                       then
     */
    public static Connection connect(
            EventChannel channel,
            InetSocketAddress server,
            ConnectionParameters parameters,
            QueuePairFactory factory,
            Duration timeout)
            throws RdmaException {
        Objects.requireNonNull(factory, "factory");
        CmId id = channel.createId();
        try {
            Duration wait = eventWait(timeout);
            resolveAddress(id, null, server, timeout);
            id.resolveRoute(timeout);
            id.expect(CmEventType.ROUTE_RESOLVED, wait);
            QueuePair qp = factory.create(id);
            id.connect(parameters);
            CmEvent established = id.expect(CmEventType.ESTABLISHED, wait);
            return new Connection(id, qp, null, established);
        } catch (RdmaException | RuntimeException | Error e) {
            id.close();
            throw e;
        }
    }

    /** How many ids, each with a new local port, {@link #connectOnAFreePort} tries. */
    public static final int CONNECT_PORT_ATTEMPTS = 3;

    /**
     * {@link #connect}, tried again with a new id when {@code rdma_connect} could not bind the local port rdma_cm
     * chose ({@link #portChosenWasTaken}: on iWARP a TCP socket of the host holds it); nothing reached the server
     * then, so the next try is not a second connect in the server's eyes. Any other failure is thrown at once, and
     * the last of {@value #CONNECT_PORT_ATTEMPTS} taken ports with the earlier ones suppressed in it.
     *
     * <p>{@code factory} is called once per attempt: a failed attempt's queue pair is destroyed with its id; what
     * else the factory made (PD, CQ, registered memory) is the caller's, on the same device. The next call may reuse
     * the PD and the memory, but should make a new CQ (closing the last, whose queue pair is gone by then): the
     * receives the failed attempt's factory posted are flushed into the CQ as its queue pair is destroyed
     * ({@code IBV_WC_WR_FLUSH_ERR}, with that attempt's work request ids), and a CQ kept for the next attempt hands
     * them to the caller as if they were the connection's (a first-call test met one, rehearsal r69). A queue pair
     * number does not tell them apart either: devices reuse the numbers of destroyed queue pairs (Soft-iWARP gives
     * the lowest free one).
     *
     * @param channel    the event channel the new ids' events arrive on
     * @param server     the server's IP address and port
     * @param parameters resources, retries and private data of the connect request
     * @param factory    makes each attempt's queue pair once its route is resolved
     * @param timeout    the longest wait for each step's event
     * @return the established connection; the caller closes it
     * @throws RdmaException as {@link #connect} does; the ids are closed then
     */
    public static Connection connectOnAFreePort(
            EventChannel channel,
            InetSocketAddress server,
            ConnectionParameters parameters,
            QueuePairFactory factory,
            Duration timeout)
            throws RdmaException {
        return onAFreePort(server, () -> connect(channel, server, parameters, factory, timeout));
    }

    /** One connect attempt with a new id: {@link #connect}, or a stand-in in tests. */
    @FunctionalInterface
    interface ConnectAttempt {
        Connection run() throws RdmaException;
    }

    /** {@link #connectOnAFreePort}'s loop over {@code attempt}. */
    static Connection onAFreePort(InetSocketAddress server, ConnectAttempt connect) throws RdmaException {
        List<RdmaException> taken = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            try {
                return connect.run();
            } catch (RdmaException e) {
                if (!portChosenWasTaken(e) || attempt == CONNECT_PORT_ATTEMPTS) {
                    taken.forEach(e::addSuppressed);
                    throw e;
                }
                taken.add(e);
                LOG.info(
                        "connecting to {}: {} (the local port rdma_cm chose is held by a TCP socket); trying a new "
                                + "id, attempt {} of {}",
                        server,
                        e.getMessage(),
                        attempt + 1,
                        CONNECT_PORT_ATTEMPTS);
            }
        }
    }

    /**
     * Resolves {@code destination}'s address on {@code id} (from {@code source}, null: any) and takes the
     * ADDR_RESOLVED event: in attempts of at most {@link #RESOLVE_ATTEMPT}, each one that ends in ADDR_ERROR with
     * ETIMEDOUT followed by another on the same id, until {@code timeout} has passed. Then the last ADDR_ERROR is
     * thrown as a {@link CmEventException}, as is at once any other (ENETUNREACH...).
     *
     * @param id          a new id, not yet resolved
     * @param source      the local address to resolve from, or null for the route's choice
     * @param destination the peer's IP address and port
     * @param timeout     the total time for all attempts
     * @throws RdmaException a {@link CmEventException} with the last ADDR_ERROR, or {@code rdma_resolve_addr}'s errno
     */
    public static void resolveAddress(
            CmId id, InetSocketAddress source, InetSocketAddress destination, Duration timeout) throws RdmaException {
        Objects.requireNonNull(timeout, "timeout");
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int attempt = 1; ; attempt++) {
            long left = deadline - System.nanoTime();
            Duration step = Duration.ofNanos(Math.max(Math.min(left, RESOLVE_ATTEMPT.toNanos()), 1_000_000));
            id.resolveAddress(source, destination, step);
            try {
                id.expect(CmEventType.ADDR_RESOLVED, eventWait(step));
                return;
            } catch (CmEventException e) {
                boolean timedOut = e.event().type() == CmEventType.ADDR_ERROR && e.errno() == Errno.ETIMEDOUT;
                if (!timedOut || deadline - System.nanoTime() <= 0) {
                    throw e;
                }
                LOG.debug(
                        "resolving {}: attempt {} timed out after {} ms; trying again",
                        destination,
                        attempt,
                        step.toMillis());
            }
        }
    }

    /**
     * How long to wait for the event that ends a CM step the kernel times out itself after {@code cmTimeout}: past
     * that, so that the CM's own reason (ADDR_ERROR with ETIMEDOUT...) is what gets reported. The kernel's timer
     * wheel fires a long timer up to an eighth of its length late (a 30 s timer by up to about 2 s with HZ=250),
     * plus a second for the event to reach us on a loaded machine.
     *
     * @param cmTimeout the timeout handed to the kernel (for address or route resolution)
     * @return {@code cmTimeout} plus an eighth of it plus one second
     */
    public static Duration eventWait(Duration cmTimeout) {
        return cmTimeout.plus(cmTimeout.dividedBy(8)).plusSeconds(1);
    }

    /**
     * Server: a new id on {@code channel} bound to {@code address} and listening.
     *
     * <p>Verbs: {@code rdma_create_id}, {@code rdma_bind_addr}, {@code rdma_listen}.
     *
     * @param channel the event channel of the listening id and its requests
     * @param address the local address and port (port 0: any, then read {@link CmId#localPort()})
     * @param backlog the pending connection requests the kernel queues
     * @return the listening id; closing it stops listening
     * @throws RdmaException with the errno of the verb that failed (EADDRINUSE: the port is taken; for port 0, after
     *                       {@value #LISTEN_ATTEMPTS} ports: see {@link #anotherPortMayListen}); the id is closed
     */
    @Verb("rdma_create_id")
    @Verb("rdma_bind_addr")
    @Verb("rdma_listen")
    public static CmId listen(EventChannel channel, InetSocketAddress address, int backlog) throws RdmaException {
        for (int attempt = 1; ; attempt++) {
            CmId id = channel.createId();
            try {
                id.bind(address);
                id.listen(backlog);
                return id;
            } catch (RdmaException e) {
                id.close();
                if (!anotherPortMayListen(address, e, attempt)) {
                    throw e;
                }
                LOG.info(
                        "listening on {}: {} (the port rdma_cm chose is held by a TCP socket); trying another, "
                                + "attempt {} of {}",
                        address,
                        e.getMessage(),
                        attempt + 1,
                        LISTEN_ATTEMPTS);
            } catch (RuntimeException | Error e) {
                id.close();
                throw e;
            }
        }
    }

    /** How many ports a listen on port 0 tries (see {@link #anotherPortMayListen}). */
    public static final int LISTEN_ATTEMPTS = 3;

    /**
     * Whether a listen that failed with {@code e} on its {@code attempt}-th port may try another: when it asked for
     * any port (port 0) and {@code rdma_listen} failed with EADDRINUSE. On iWARP the rdma_cm port space is not the
     * TCP stack's: rdma_cm picks a port free in its own space at {@code rdma_bind_addr}, and the device's listen binds
     * a kernel TCP socket to it (Soft-iWARP: siw_cm.c, {@code siw_create_listen}), which fails when a TCP socket of
     * the host holds that port. A new id gets a new port. A port the caller named is theirs to choose again.
     *
     * @param address the address the listen asked for
     * @param e       the failure
     * @param attempt how many ports were tried, this one included
     * @return whether to try again with a new id
     */
    public static boolean anotherPortMayListen(InetSocketAddress address, RdmaException e, int attempt) {
        return address.getPort() == 0 && portChosenWasTaken(e) && attempt < LISTEN_ATTEMPTS;
    }

    /**
     * Whether {@code e} says the transport could not bind the local port rdma_cm chose for an id: a verb itself
     * ({@code rdma_connect}, {@code rdma_listen}) failed with EADDRINUSE, not an event. On iWARP rdma_cm's port space
     * is not the TCP stack's: rdma_cm picks a port free in its own space (cma.c, {@code cma_alloc_any_port}), and
     * the device binds a kernel TCP socket to it (Soft-iWARP: siw_cm.c, {@code kernel_bindconnect} for a connect,
     * {@code siw_create_listen} for a listen), which fails when a TCP socket of the host holds that port; a real
     * RNIC's port mapper keeps the two apart. A new id gets a new port, so a connect or a listen on port 0 that
     * fails so is worth another try: every connect and listen of this project tries again on it (RdmaClient,
     * netty-rdma's client and server, rdma-tool perf, {@link #listen}).
     *
     * @param e the failure
     * @return whether it was the chosen port taken by the transport
     */
    public static boolean portChosenWasTaken(RdmaException e) {
        return e.errno() == Errno.EADDRINUSE && !(e instanceof CmEventException);
    }

    /**
     * Server: waits up to {@code timeout} for the next CONNECT_REQUEST on {@code listener}, makes its queue pair
     * with {@code factory}, accepts with {@code parameters} and waits for ESTABLISHED.
     *
     * @param listener   the listening id
     * @param parameters resources and private data of the accept
     * @param factory    makes the new id's queue pair
     * @param timeout    the longest wait for the CONNECT_REQUEST, and then for ESTABLISHED
     * @return the established connection; the caller closes it
     * @throws RdmaException a {@link CmTimeoutException} if no request or no ESTABLISHED came in time, a
     *                       {@link CmEventException} for another event, or a failed verb's errno; the new id is closed
     *                       then
     */
    public static Connection acceptOne(
            CmId listener, ConnectionParameters parameters, QueuePairFactory factory, Duration timeout)
            throws RdmaException {
        Objects.requireNonNull(factory, "factory");
        CmEvent request = listener.expect(CmEventType.CONNECT_REQUEST, timeout);
        CmId id = request.id();
        try {
            QueuePair qp = factory.create(id);
            id.accept(parameters);
            CmEvent established = id.expect(CmEventType.ESTABLISHED, timeout);
            return new Connection(id, qp, request, established);
        } catch (RdmaException | RuntimeException | Error e) {
            id.close();
            throw e;
        }
    }
}
