package org.panamardma.verbs.connection;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.connection.agent.AgentMode;
import org.panamardma.verbs.connection.agent.Handshake;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Listens on an address and accepts every connection request into an {@link RdmaConnection}, handed to a callback
 * or queued for {@link #accept(Duration)}.
 *
 * <p>One platform daemon thread ({@code rdma-server-<address>}) reads the server's rdma_cm event channel: it hands
 * each request to a virtual thread that makes its resources (protection domain, queue pair, registered receive
 * buffers: milliseconds, more under emulation) and accepts it, so that one client's setup never holds up the
 * events of the others; it hands the connection over on ESTABLISHED, and delivers DISCONNECTED / DEVICE_REMOVAL to
 * the connection they concern. A request beyond the server's most connections ({@link #listen(InetSocketAddress,
 * ConnectionOptions, Consumer, int)}) is rejected before anything is allocated for it, with a WARN line naming the
 * peer and the limit (at most one per 10 s; {@link #refusedConnections()} counts them all). A server given an
 * {@link Admission} asks it instead, for each request, before anything is allocated for it. A request that cannot be
 * set up is rejected and logged; a connection that fails or
 * closes does not affect the others. The callback runs on the event thread: it must not block (nor close the
 * connection and expect to wait for its DISCONNECTED).
 *
 * <p>The accepted connections' rdma_cm ids live on the server's event channel: closing the server closes the
 * connections still open.
 */
public final class RdmaServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaServer.class);
    private static final long REFUSAL_WARNING_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    /**
     * Decides which connection requests a server takes, on its event thread, before anything is allocated for
     * them: an upper layer's caps (per client address, for instance) and checks of what the client asked for. It
     * logs and counts its own refusals; the server rejects the request.
     */
    @FunctionalInterface
    public interface Admission {
        /**
         * Decides whether to accept a connection request, on the server's event thread.
         *
         * @param peer the client's address, if rdma_cm knows it
         * @param requested the client's connection parameters as this side sees them: {@code initiatorDepth} is the
         *                  RDMA Reads this side may have outstanding at the client (its responder resources)
         * @return what to run once (from any thread) when the admitted connection is gone, or set up failed; empty
         *         to reject the request. Must not block.
         */
        Optional<Runnable> admit(Optional<InetSocketAddress> peer, ConnectionParameters requested);
    }

    private final InetSocketAddress address;
    private final ConnectionOptions options;
    private final EventChannel events;
    private final Consumer<RdmaConnection> onAccept;
    private final BlockingQueue<RdmaConnection> queue;
    /** Connections by id: accepted (not yet ESTABLISHED) and established. Only the event thread adds. */
    private final Map<CmId, RdmaConnection> connections = new ConcurrentHashMap<>();

    private final Thread thread;
    private final int maxConnections;
    /** Requests being set up on their virtual threads: counted with {@link #connections} against the maximum. */
    private final AtomicInteger settingUp = new AtomicInteger();

    private final AtomicLong refused = new AtomicLong();
    private final Admission admission;
    /** What each admitted request's connection gives back to the admission when it ends. */
    private final Map<CmId, Runnable> admitted = new ConcurrentHashMap<>();
    /** When the next WARN line for a refusal may go out (at most one per 10 s; the rest at DEBUG). */
    private volatile long nextRefusalWarning = System.nanoTime();

    private volatile boolean closing;
    /** What the event loop sleeps on (the event channel's descriptor, an eventfd close() writes), how often. */
    private final FdWaiter sleep;

    private final java.util.concurrent.atomic.AtomicLong sleeps = new java.util.concurrent.atomic.AtomicLong();
    /** Set by close() before it closes the connections: a setup still running then rejects its request. */
    private volatile boolean stopAccepting;

    private final Object setupLock = new Object();

    private RdmaServer(
            InetSocketAddress address,
            ConnectionOptions options,
            Consumer<RdmaConnection> onAccept,
            BlockingQueue<RdmaConnection> queue,
            int maxConnections,
            Admission admission)
            throws RdmaException {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("at least one connection, not " + maxConnections);
        }
        this.maxConnections = maxConnections;
        this.admission = admission;
        this.address = address;
        this.options = options;
        this.onAccept = onAccept;
        this.queue = queue;
        this.events = EventChannel.create();
        try {
            // the listening id closes with the channel it belongs to (closing cascades: NativeResource)
            CmConnector.listen(events, address, 64);
            this.sleep = FdWaiter.create();
            sleep.add(events.fd());
        } catch (RdmaException | RuntimeException e) {
            events.close();
            throw e;
        }
        this.thread = Thread.ofPlatform()
                .name("rdma-server-" + address.getAddress().getHostAddress() + ":" + address.getPort())
                .daemon(true)
                .unstarted(this::run);
        thread.start();
    }

    /**
     * Listens on {@code address}; each established connection goes to {@code onAccept} (on the server's thread).
     *
     * @param address  the local IP address and port (port 0: any)
     * @param options  the options of every accepted connection
     * @param onAccept takes each established connection; runs on the server's thread, so it must not block
     * @return the listening server; closing it also closes the connections still open (their ids live on its channel)
     * @throws RdmaException if the event channel or the listening id cannot be made, with the verb's errno (EADDRINUSE:
     *                       the port is taken)
     */
    public static RdmaServer listen(
            InetSocketAddress address, ConnectionOptions options, Consumer<RdmaConnection> onAccept)
            throws RdmaException {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(onAccept, "onAccept");
        return new RdmaServer(address, options, onAccept, null, Integer.MAX_VALUE, null);
    }

    /**
     * Listens on {@code address}, taking the connection requests {@code admission} admits: it sees each request
     * (the client's address and connection parameters) before anything is allocated for it.
     *
     * @param address   the local IP address and port (port 0: any)
     * @param options   the options of every accepted connection
     * @param onAccept  takes each established connection; runs on the server's thread, so it must not block
     * @param admission decides on each request before anything is allocated; a refused one is rejected
     * @return the listening server; closing it also closes the connections still open (their ids live on its channel)
     * @throws RdmaException if the event channel or the listening id cannot be made, with the verb's errno (EADDRINUSE:
     *                       the port is taken)
     */
    public static RdmaServer listen(
            InetSocketAddress address,
            ConnectionOptions options,
            Consumer<RdmaConnection> onAccept,
            Admission admission)
            throws RdmaException {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(onAccept, "onAccept");
        Objects.requireNonNull(admission, "admission");
        return new RdmaServer(address, options, onAccept, null, Integer.MAX_VALUE, admission);
    }

    /**
     * Listens on {@code address}, serving at most {@code maxConnections} at once (being set up or established):
     * a request beyond them is rejected before anything is allocated for it.
     *
     * @param address        the local IP address and port (port 0: any)
     * @param options        the options of every accepted connection
     * @param onAccept       takes each established connection; runs on the server's thread, so it must not block
     * @param maxConnections the bound on connections open at once, at least 1: what a flood of requests can make this
     *                       server allocate
     * @return the listening server; closing it also closes the connections still open (their ids live on its channel)
     * @throws RdmaException if the event channel or the listening id cannot be made, with the verb's errno (EADDRINUSE:
     *                       the port is taken)
     * @throws IllegalArgumentException if {@code maxConnections} is below 1
     */
    public static RdmaServer listen(
            InetSocketAddress address, ConnectionOptions options, Consumer<RdmaConnection> onAccept, int maxConnections)
            throws RdmaException {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(onAccept, "onAccept");
        return new RdmaServer(address, options, onAccept, null, maxConnections, null);
    }

    /**
     * Listens on {@code address}; take the established connections with {@link #accept(Duration)}.
     *
     * @param address the local IP address and port (port 0: any)
     * @param options the options of every accepted connection
     * @return the listening server; closing it also closes the connections still open (their ids live on its channel)
     * @throws RdmaException if the event channel or the listening id cannot be made, with the verb's errno (EADDRINUSE:
     *                       the port is taken)
     */
    public static RdmaServer listen(InetSocketAddress address, ConnectionOptions options) throws RdmaException {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        return new RdmaServer(address, options, null, new LinkedBlockingQueue<>(), Integer.MAX_VALUE, null);
    }

    /** {@return the address the server was made to listen on (as given: port 0 stays 0)} */
    public InetSocketAddress address() {
        return address;
    }

    /**
     * The next established connection, waiting up to {@code timeout}; null if none came. Queue mode only.
     *
     * @param timeout the longest wait
     * @return the connection, or null if none was established in time
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws IllegalStateException if the server hands its connections to a callback
     */
    public RdmaConnection accept(Duration timeout) throws InterruptedException {
        if (queue == null) {
            throw new IllegalStateException("this server hands its connections to a callback");
        }
        return queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** {@return how many connections are open (being accepted or established)} */
    public int connectionCount() {
        return connections.size();
    }

    /**
     * How many connection requests the server refused.
     *
     * @return connection requests rejected because the server had its most connections, or by its admission
     */
    public long refusedConnections() {
        return refused.get();
    }

    /** The event loop: takes what the channel holds, sleeps until it has more or close() (issue 26: no 50 ms slices). */
    private void run() {
        try (sleep) {
            while (!closing) {
                CmEvent e = events.poll(Duration.ZERO);
                if (e == null) {
                    sleeps.incrementAndGet();
                    sleep.await(CompletionPoller.IDLE_WAIT_MILLIS);
                    continue;
                }
                if (closing) {
                    continue;
                }
                try {
                    dispatch(e);
                } catch (RuntimeException | Error ex) {
                    LOG.warn(thread.getName() + ": handling " + e, ex);
                }
            }
        } catch (RdmaException | RuntimeException ex) {
            if (!closing) {
                LOG.error(thread.getName() + ": reading rdma_cm events", ex);
            }
        }
    }

    private void dispatch(CmEvent e) {
        if (e.type() == CmEventType.CONNECT_REQUEST) {
            accepting(e);
            return;
        }
        RdmaConnection c = connections.get(e.id());
        if (c == null) {
            return;
        }
        switch (e.type()) {
            case ESTABLISHED -> {
                c.start();
                if (queue != null) {
                    queue.add(c);
                } else {
                    onAccept.accept(c);
                }
                watchStreamStart(c, e);
            }
            case DISCONNECTED, DEVICE_REMOVAL -> c.handleCmEvent(e);
            case REJECTED, CONNECT_ERROR, UNREACHABLE -> {
                LOG.info(thread.getName() + ": connection failed: " + e);
                connections.remove(e.id());
                c.close();
            }
            default -> {}
        }
    }

    /**
     * On Soft-iWARP, a client's first message may be left unread in the kernel's socket until the client sends more:
     * {@link ServerStreamStart} looks (on a virtual thread, once the connection is handed over, so that it delays no
     * connection) and, if so, makes the client's device send more.
     */
    private void watchStreamStart(RdmaConnection c, CmEvent established) {
        try {
            if (ServerStreamStart.needed(c)) {
                ServerStreamStart.watch(c, established, options.timeout());
            }
        } catch (RdmaException | RuntimeException ex) {
            LOG.debug("{}: the stream start check of {} failed", thread.getName(), c, ex);
        }
    }

    /** On the event thread: admits the request or rejects it at once, then sets it up on a virtual thread. */
    private void accepting(CmEvent request) {
        CmId id = request.id();
        if (connections.size() + settingUp.get() >= maxConnections) {
            long n = refused.incrementAndGet();
            long now = System.nanoTime();
            boolean warn = now - nextRefusalWarning >= 0;
            if (warn) {
                nextRefusalWarning = now + REFUSAL_WARNING_INTERVAL_NANOS;
            }
            LOG.atLevel(warn ? Level.WARN : Level.DEBUG)
                    .log(() -> thread.getName() + ": refusing a connection from "
                            + id.peerAddress().map(Object::toString).orElse("?")
                            + ": the server has its most connections ("
                            + maxConnections + "); " + n + " refused so far");
            reject(id);
            return;
        }
        if (admission != null) {
            Optional<Runnable> release;
            try {
                release = admission.admit(id.peerAddress(), request.parameters());
            } catch (RuntimeException e) {
                LOG.warn(thread.getName() + ": the admission failed on a connection request", e);
                release = Optional.empty();
            }
            if (release.isEmpty()) {
                refused.incrementAndGet();
                reject(id);
                return;
            }
            admitted.put(id, release.get());
        }
        settingUp.incrementAndGet();
        try {
            Thread.ofVirtual().name(thread.getName() + "-setup").start(() -> setUp(request));
        } catch (RuntimeException | Error e) {
            settingUp.decrementAndGet();
            LOG.warn(thread.getName() + ": rejecting a connection request", e);
            leave(id);
            reject(id);
        }
    }

    /** Gives an admitted request's place back to the admission (once). */
    private void leave(CmId id) {
        Runnable release = admitted.remove(id);
        if (release != null) {
            release.run();
        }
    }

    /** Makes the request's resources and accepts it; the event thread goes on meanwhile. */
    private void setUp(CmEvent request) {
        CmId id = request.id();
        ConnectionResources res = new ConnectionResources(options);
        try {
            res.create(id);
            // the client's CONNECT_REQUEST data (RFC 8797 for RPC-over-RDMA), and its RFC 7306 agent offer, which
            // this server answers in its accept where it runs the agent too (Handshake)
            byte[] clientData = request.privateData();
            ConnectionParameters accept = options.parameters();
            Handshake.Negotiated agentTerms = null;
            if (options.agent() != AgentMode.OFF) {
                Handshake.Parsed offered = Handshake.parse(clientData);
                clientData = offered.applicationData();
                agentTerms = Handshake.negotiate(options.agentDepth(), offered.offer());
                if (agentTerms != null) {
                    accept = accept.withPrivateData(
                            Handshake.append(accept.privateData(), options.agentDepth(), options.agentDepth()));
                }
            }
            RdmaConnection c = new RdmaConnection(id, res, null, thread, agentTerms);
            c.peerPrivateData(clientData);
            c.peerParameters(request.parameters());
            c.onClose(() -> {
                connections.remove(id);
                leave(id);
            });
            synchronized (setupLock) {
                if (stopAccepting) {
                    throw new IllegalStateException("the server is closing");
                }
                // in the map before the accept: its ESTABLISHED event, read by the event thread, finds it there;
                // and close() sees it
                connections.put(id, c);
                settingUp.decrementAndGet();
            }
            id.accept(accept);
        } catch (RdmaException | RuntimeException ex) {
            if (connections.remove(id) == null) {
                settingUp.decrementAndGet();
            }
            if (stopAccepting) {
                LOG.debug("{}: rejecting a connection request", thread.getName(), ex);
            } else if (peerWentAway(ex)) {
                // the client gave up on this attempt before our accept reached it (seen with the kernel's NFS client
                // on siw under load: its connect timed out, it retried, and the retry was served): a network event
                // like a TCP reset in the handshake, nothing wrong with this server
                LOG.info(
                        "{}: a connection request from {} was abandoned by the peer ({})",
                        thread.getName(),
                        id.peerAddress().map(Object::toString).orElse("?"),
                        ex.getMessage());
            } else {
                LOG.warn("{}: rejecting a connection request", thread.getName(), ex);
            }
            leave(id);
            reject(id);
            res.close();
        }
    }

    /** Whether accepting failed because the peer reset, refused or timed out its side of the exchange. */
    static boolean peerWentAway(Exception ex) {
        if (!(ex instanceof RdmaException r)) {
            return false;
        }
        int errno = r.errno();
        return errno == Errno.ECONNRESET
                || errno == Errno.ECONNREFUSED
                || errno == Errno.ETIMEDOUT
                || errno == Errno.ECONNABORTED;
    }

    private static void reject(CmId id) {
        try {
            id.reject(null);
        } catch (RdmaException | RuntimeException ignored) {
            // closing it anyway
        }
        id.close();
    }

    /** Stops accepting, closes the connections still open and the listener. */
    @Override
    public void close() {
        synchronized (setupLock) {
            stopAccepting = true;
        }
        // setups still making resources reject their requests: let them finish (each takes milliseconds)
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (settingUp.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        // the connections first, while this server's thread still delivers their DISCONNECTED events
        for (RdmaConnection c : connections.values()) {
            try {
                c.close();
            } catch (RuntimeException e) {
                LOG.debug("closing " + c, e);
            }
        }
        closing = true;
        sleep.wakeup(); // nothing after the loop closed it
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        events.close();
    }

    /** @return how often the event loop has slept (tests of an idle server) */
    long eventLoopSleeps() {
        return sleeps.get();
    }

    @Override
    public String toString() {
        return thread.getName();
    }
}
