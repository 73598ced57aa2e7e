package org.panamardma.oncrpc.tcp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.oncrpc.limits.ConnectionAdmission;
import org.panamardma.oncrpc.limits.MemoryBudget;
import org.panamardma.oncrpc.limits.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Serves an {@link RpcService} (an {@link RpcDispatcher}, for one) over TCP with record marking (RFC 5531 section
 * 11); each call reaches the service with the connection's local and remote addresses.
 *
 * <p>Each connection has a virtual thread reading records (at most {@link Builder#maxRecordSize} bytes each) and
 * each call runs on a virtual thread of its own, at most {@link Builder#maxCallsPerConnection} at once per connection
 * (the reader stops reading while that many are running: back-pressure on the client). Replies go out in completion
 * order, each written whole under the connection's write lock, as the XID is what matches them to calls.
 *
 * <p>A reply's inline part is encoded into a buffer of {@link Builder#replyBufferSize} bytes (pooled); results a
 * procedure writes with {@code putEligibleOpaque} are written from the procedure's own memory and do not count
 * against it. Results that do not fit are answered with SYSTEM_ERR by the dispatcher.
 *
 * <p>What clients can make the server hold is bounded by its configuration, as for the RPC-over-RDMA server (the
 * anchors are Linux's sunrpc: {@code svc_check_conn_limits} and {@code svc_age_temp_xprts} in
 * {@code net/sunrpc/svc_xprt.c}):
 * <ul>
 *   <li>at most {@link Builder#maxConnections} connections, and {@link Builder#maxConnectionsPerAddress} from one
 *       client address: a connection beyond either is reset at once (counted by {@link #admission()}, logged at a
 *       bounded rate);
 *   <li>per call in progress, its record and a reply buffer, counted against a per-connection budget within a
 *       per-server one ({@link Builder#connectionMemory}, {@link Builder#serverMemory}), shared fairly between
 *       connections ({@link MemoryBudget}); a record waits up to {@link Builder#memoryWait} for its memory (the
 *       connection is not read meanwhile), then is read, thrown away and its call dropped, as sunrpc drops a request
 *       it cannot take (the client retransmits);
 *   <li>a reply not written within {@link Builder#writeTimeout} (a client that does not read its socket), a record
 *       not arrived whole within {@link Builder#readTimeout} from its first byte (half-open, or trickling), and a
 *       connection with nothing in progress for {@link Builder#idleTimeout} end the connection: its calls still
 *       running fail at their write and give their memory back, and those not yet started are not run.
 * </ul>
 *
 * <p>A connection that breaks the protocol (a record over the limit, a message that is not a decodable call, a peer
 * that closes in the middle of a record) is closed; the server goes on serving the others.
 */
public final class TcpRpcServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpRpcServer.class);

    /** Default largest call record accepted: 4 MiB. */
    public static final int DEFAULT_MAX_RECORD_SIZE = 4 << 20;
    /** Default reply buffer (the inline part of a reply): 64 KiB. */
    public static final int DEFAULT_REPLY_BUFFER_SIZE = 64 << 10;
    /** Default number of calls running at once on one connection. */
    public static final int DEFAULT_MAX_CALLS_PER_CONNECTION = 64;
    /** Default most connections at once, as the RPC-over-RDMA server's. */
    public static final int DEFAULT_MAX_CONNECTIONS = 128;
    /** Default most connections at once from one client address (Linux's nconnect goes up to 16). */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 16;
    /** Default memory the calls of one connection may hold: 64 MiB. */
    public static final long DEFAULT_CONNECTION_MEMORY = 64L << 20;
    /** Default memory the calls of all connections may hold: 512 MiB. */
    public static final long DEFAULT_SERVER_MEMORY = 512L << 20;
    /** Default wait of a record for memory before its call is dropped. */
    public static final Duration DEFAULT_MEMORY_WAIT = Duration.ofSeconds(10);
    /** Default idle timeout: 6 minutes, sunrpc's {@code svc_conn_age_period}. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(6);
    /** Default time a record may take to arrive, from its first byte. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);
    /** Default time a reply may take to be written. */
    public static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(30);

    private final RpcService service;
    private final ServerSocket listener;
    private final TcpSettings settings;
    private final Level connectionLogLevel;
    private final ReplyBuffers replyBuffers;
    private final ConnectionAdmission admission;
    private final MemoryBudget memory;
    private final long connectionMemory;
    private final RateLimitedLog refusalLog = new RateLimitedLog(TcpRpcServer.class, Duration.ofSeconds(10));
    private final TcpServerStatistics statistics = new TcpServerStatistics(refusalLog);
    private final Set<TcpConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread acceptor;
    private final Thread watchdog;

    private TcpRpcServer(Builder b) throws IOException {
        this.service = b.service;
        this.settings = new TcpSettings(
                b.maxRecordSize,
                b.replyBufferSize,
                b.maxCallsPerConnection,
                b.memoryWait,
                b.idleTimeout,
                b.readTimeout,
                b.writeTimeout);
        this.connectionLogLevel = b.logConnections ? Level.INFO : Level.DEBUG;
        this.replyBuffers = new ReplyBuffers(b.replyBufferSize);
        this.admission = new ConnectionAdmission(b.maxConnections, b.maxConnectionsPerAddress);
        this.memory = MemoryBudget.of("server memory", b.serverMemory);
        this.connectionMemory = b.connectionMemory;
        this.listener = new ServerSocket();
        try {
            listener.bind(b.address, b.backlog);
        } catch (IOException e) {
            listener.close();
            throw e;
        }
        this.acceptor = Thread.ofVirtual().name("oncrpc-tcp-accept-" + port()).start(this::acceptLoop);
        // a platform thread: a virtual one's every timed wake-up runs the virtual-thread scheduler, whose carriers
        // then spin before they park again (ForkJoinPool.deactivate): in an idle server most of its CPU (issue 26)
        this.watchdog = Thread.ofPlatform()
                .daemon(true)
                .name("oncrpc-tcp-watchdog-" + port())
                .start(this::watch);
    }

    /**
     * {@return a builder for a server running {@code dispatcher}}
     *
     * @param dispatcher the programs to serve; shared by every connection, so it must be thread-safe (an {@link
     *        RpcDispatcher} is immutable)
     */
    public static Builder builder(RpcDispatcher dispatcher) {
        return new Builder(dispatcher);
    }

    /**
     * {@return a builder for a server running {@code service} (which sees each call's addresses)}
     *
     * @param service serves every call of every connection, so it must be thread-safe
     */
    public static Builder builder(RpcService service) {
        return new Builder(service);
    }

    /** {@return the address the server listens on, with the port actually bound} */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    /** {@return the port actually bound (the one chosen by the system when 0 was asked for)} */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@return the number of open connections} */
    public int connectionCount() {
        return connections.size();
    }

    /** {@return which connections the server takes: open now, admitted, refused by reason} */
    public ConnectionAdmission admission() {
        return admission;
    }

    /** {@return the memory the calls of all connections hold (used, peak, refusals)} */
    public MemoryBudget memoryBudget() {
        return memory;
    }

    /** {@return what the limits did: connections ended by each timeout, calls dropped} */
    public TcpServerStatistics statistics() {
        return statistics;
    }

    /** Stops listening and closes every connection; calls still running finish but their replies are dropped. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            listener.close();
        } catch (IOException e) {
            LOG.debug("closing the listener", e);
        }
        for (TcpConnection c : connections) {
            c.close(TcpConnection.End.SERVER_CLOSED);
        }
        acceptor.interrupt();
        watchdog.interrupt();
    }

    private void acceptLoop() {
        while (!closed.get()) {
            Socket socket;
            try {
                socket = listener.accept();
            } catch (IOException e) {
                if (!closed.get()) {
                    LOG.warn("accepting a connection on port " + port(), e);
                    Sockets.pause();
                }
                continue;
            }
            admit(socket);
        }
    }

    /** Takes a connection if the caps allow; else resets it at once (no TIME_WAIT, nothing allocated for it). */
    private void admit(Socket socket) {
        ConnectionAdmission.Decision decision = admission.admit(socket.getInetAddress());
        if (decision instanceof ConnectionAdmission.Refused refused) {
            refusalLog.warn(() -> "port " + port() + ": refusing a connection from " + socket.getRemoteSocketAddress()
                    + ": "
                    + (refused.reason() == ConnectionAdmission.Refusal.SERVER_FULL
                            ? "the server has"
                            : "its address has")
                    + " its most connections (" + refused.limit() + "); "
                    + admission.refused() + " refused so far");
            Sockets.reset(socket);
            return;
        }
        ConnectionAdmission.Ticket ticket = (ConnectionAdmission.Ticket) decision;
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            String name = "oncrpc-tcp " + socket.getRemoteSocketAddress() + " -> " + socket.getLocalPort();
            TcpConnection connection = new TcpConnection(
                    name,
                    new BufferedInputStream(socket.getInputStream(), 64 << 10),
                    new BufferedOutputStream(socket.getOutputStream(), 64 << 10),
                    () -> Sockets.closeQuietly(socket),
                    service,
                    Optional.ofNullable((InetSocketAddress) socket.getLocalSocketAddress()),
                    Optional.ofNullable((InetSocketAddress) socket.getRemoteSocketAddress()),
                    settings,
                    memory.child(socket.getRemoteSocketAddress() + " memory", connectionMemory),
                    replyBuffers,
                    task -> Thread.ofVirtual().name(name + " call").start(task),
                    statistics,
                    connectionLogLevel);
            connection.onClosed(() -> {
                connections.remove(connection);
                ticket.close();
            });
            connections.add(connection);
            if (closed.get()) {
                connection.close(TcpConnection.End.SERVER_CLOSED);
                return;
            }
            Thread.ofVirtual().name(name).start(connection::run);
        } catch (IOException | RuntimeException e) {
            LOG.warn("setting up a connection from " + socket.getRemoteSocketAddress(), e);
            Sockets.closeQuietly(socket);
            ticket.close();
        }
    }

    /** The watchdog: every so often, ends the connections whose write, read or idle deadline has passed. */
    private void watch() {
        long period = settings.watchPeriod().toMillis();
        while (!closed.get()) {
            try {
                Thread.sleep(period);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (TcpConnection c : connections) {
                TcpConnection.End expired = c.expired(now);
                if (expired != null) {
                    c.close(expired);
                }
            }
        }
    }

    /** Settings of a server; {@link #start()} binds and starts it. */
    public static final class Builder {
        private final RpcService service;
        private InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        private int backlog = 128;
        private int maxRecordSize = DEFAULT_MAX_RECORD_SIZE;
        private int replyBufferSize = DEFAULT_REPLY_BUFFER_SIZE;
        private int maxCallsPerConnection = DEFAULT_MAX_CALLS_PER_CONNECTION;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
        private long connectionMemory = DEFAULT_CONNECTION_MEMORY;
        private long serverMemory = DEFAULT_SERVER_MEMORY;
        private Duration memoryWait = DEFAULT_MEMORY_WAIT;
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private Duration readTimeout = DEFAULT_READ_TIMEOUT;
        private Duration writeTimeout = DEFAULT_WRITE_TIMEOUT;
        private boolean logConnections;

        private Builder(RpcService service) {
            this.service = Objects.requireNonNull(service, "service");
        }

        /**
         * Where to listen; the loopback address and a system-chosen port (0) by default.
         *
         * @param address the local address and port; port 0 lets the system choose ({@link TcpRpcServer#port()} tells
         *        which)
         * @return this builder
         */
        public Builder bind(InetSocketAddress address) {
            this.address = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * The listen backlog; 128 by default.
         *
         * @param backlog the pending-connection queue length asked of the kernel (which caps it at {@code
         *        net.core.somaxconn})
         * @return this builder
         */
        public Builder backlog(int backlog) {
            this.backlog = backlog;
            return this;
        }

        /**
         * The largest call record accepted; a connection sending a larger one is closed.
         *
         * @param bytes the record size limit, at least 64; {@value TcpRpcServer#DEFAULT_MAX_RECORD_SIZE} by default
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is below 64, too small for a call header
         */
        public Builder maxRecordSize(int bytes) {
            if (bytes < 64) {
                throw new IllegalArgumentException("maximum record size " + bytes + " cannot hold a call header");
            }
            this.maxRecordSize = bytes;
            return this;
        }

        /**
         * The buffer for a reply's inline part (everything but {@code putEligibleOpaque} data).
         *
         * @param bytes the buffer size, at least 1024; {@value TcpRpcServer#DEFAULT_REPLY_BUFFER_SIZE} by default
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is below 1024
         */
        public Builder replyBufferSize(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("reply buffer of " + bytes + " bytes; at least 1024");
            }
            this.replyBufferSize = bytes;
            return this;
        }

        /**
         * How many calls may run at once on one connection.
         *
         * @param calls the most calls in progress on one connection, at least 1; further records wait unread, which
         *        holds back the client through TCP flow control
         * @return this builder
         * @throws IllegalArgumentException if {@code calls} is below 1
         */
        public Builder maxCallsPerConnection(int calls) {
            if (calls < 1) {
                throw new IllegalArgumentException("at least one call per connection, not " + calls);
            }
            this.maxCallsPerConnection = calls;
            return this;
        }

        /**
         * The most connections at once ({@value #DEFAULT_MAX_CONNECTIONS} by default) and from one client address
         * ({@value #DEFAULT_MAX_CONNECTIONS_PER_ADDRESS}); a connection beyond either is reset at once.
         *
         * @param total the most connections at once, at least 1
         * @param perAddress the most connections at once from one client address, at least 1
         * @return this builder
         * @throws IllegalArgumentException if either is below 1
         */
        public Builder maxConnections(int total, int perAddress) {
            if (total < 1 || perAddress < 1) {
                throw new IllegalArgumentException(
                        "at least one connection in all and per address, not " + total + " and " + perAddress);
            }
            this.maxConnections = total;
            this.maxConnectionsPerAddress = perAddress;
            return this;
        }

        /**
         * What the calls of one connection (64 MiB by default) and of all connections (512 MiB) may hold at once: each
         * call in progress holds its record and a reply buffer. A connection's budget must hold the largest record
         * and a reply buffer, the server's the connection's.
         *
         * @param perConnection the bytes the calls of one connection may hold at once
         * @param perServer the bytes the calls of all connections may hold at once
         * @return this builder (the sizes are checked by {@link #start()})
         */
        public Builder memory(long perConnection, long perServer) {
            this.connectionMemory = perConnection;
            this.serverMemory = perServer;
            return this;
        }

        /**
         * How long a record waits for memory held by other calls (10 s by default) before it is read, thrown away and
         * its call dropped, unanswered (the client retransmits). The connection is not read while it waits.
         *
         * @param wait how long, positive
         * @return this builder
         * @throws IllegalArgumentException if {@code wait} is zero or negative
         */
        public Builder memoryWait(Duration wait) {
            this.memoryWait = positive(wait, "memory wait");
            return this;
        }

        /**
         * How long a connection with no call, record or write in progress stays open: 6 minutes by default.
         *
         * @param timeout how long, positive
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is zero or negative
         */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = positive(timeout, "idle timeout");
            return this;
        }

        /**
         * How long a record may take to arrive whole, from its first byte (30 s by default); a half-open connection
         * or a client trickling a record is closed after it. Time the record waits for memory does not count.
         *
         * @param timeout how long, positive
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is zero or negative
         */
        public Builder readTimeout(Duration timeout) {
            this.readTimeout = positive(timeout, "read timeout");
            return this;
        }

        /**
         * How long a reply may take to be written (30 s by default): a client that does not read its socket is
         * closed after it, and the memory its calls held is given back. Other clients' replies wait for it no longer.
         *
         * @param timeout how long, positive
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is zero or negative
         */
        public Builder writeTimeout(Duration timeout) {
            this.writeTimeout = positive(timeout, "write timeout");
            return this;
        }

        private static Duration positive(Duration d, String what) {
            if (Objects.requireNonNull(d, what).isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
        }

        /**
         * Whether each connection's start and end is logged at INFO (a server's operator wants to see its clients
         * come and go); at DEBUG otherwise, the default.
         *
         * @param log true for INFO
         * @return this builder
         */
        public Builder logConnections(boolean log) {
            this.logConnections = log;
            return this;
        }

        /**
         * Binds and starts accepting connections.
         *
         * @return the running server; {@link TcpRpcServer#close()} stops it and closes its connections
         * @throws IOException if the address cannot be bound
         * @throws IllegalArgumentException if the memory budgets cannot hold the largest record
         */
        public TcpRpcServer start() throws IOException {
            long perCall = (long) maxRecordSize + replyBufferSize;
            if (connectionMemory < perCall || serverMemory < connectionMemory) {
                throw new IllegalArgumentException("memory budgets must hold the largest record and a reply buffer ("
                        + perCall + " bytes), a connection's within the server's: connection " + connectionMemory
                        + ", server " + serverMemory);
            }
            return new TcpRpcServer(this);
        }
    }
}
