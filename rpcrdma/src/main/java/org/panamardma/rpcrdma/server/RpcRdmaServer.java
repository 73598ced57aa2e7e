package org.panamardma.rpcrdma.server;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.oncrpc.limits.ConnectionAdmission;
import org.panamardma.oncrpc.limits.MemoryBudget;
import org.panamardma.oncrpc.limits.RateLimitedLog;
import org.panamardma.rpcrdma.ConnectPrivateData;
import org.panamardma.rpcrdma.HeaderLimits;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Serves an {@link RpcService} (an {@link org.panamardma.oncrpc.RpcDispatcher}, or a bridge to another RPC
 * library) over RPC-over-RDMA version 1 (RFC 8166): listens with rdma_cm on an address (any
 * device whose address it is), accepts each client with this server's RFC 8797 private data and reads the
 * client's, then serves the connection's calls ({@link RpcRdmaCallHandler}). The same dispatcher can serve TCP
 * ({@link org.panamardma.oncrpc.tcp.TcpRpcServer}) at the same time.
 *
 * <p>Per connection: a queue pair with {@code 2 * credits + 4} receive buffers of {@link Builder#receiveInline}
 * bytes, posted before the accept and posted again as each message is taken (so a client that connects with RNR
 * retry 0, as Linux's does, never finds none within its credits, and one overrunning them up to twofold is still
 * served), {@code credits} pre-registered send buffers of the negotiated send threshold, and at most
 * {@code credits} calls in progress. Chunk data is moved by RDMA Read and Write through memory registered for the
 * call.
 *
 * <p>What clients can make the server hold is bounded by this configuration, never by what they declare:
 * <ul>
 *   <li>at most {@link Builder#maxConnections} connections, and {@link Builder#maxConnectionsPerAddress} from one
 *       client address; a client that offers no RDMA Read resources is refused too, as Linux's svcrdma refuses it
 *       (more are rejected before anything is allocated, counted, and logged at most once per 10 s:
 *       {@link ConnectionGate});
 *   <li>a connection with no call for {@link Builder#idleTimeout} is closed ({@link IdleWatch});
 *   <li>per connection, fixed: the receive and send buffers above ({@link #fixedPinnedBytesPerConnection()});
 *       and at most {@link Builder#idleRegisteredBytes} of chunk buffers kept registered between calls (the pool
 *       the RDMA Reads land in and the reply's RDMA Writes go out from, so that steady traffic registers nothing);
 *   <li>per call, as the call really needs it: heap for a Long Call and for a reply that outgrows the Send buffer
 *       (at most the client's Reply chunk and {@link Builder#maxMessageSizes}), pinned memory for a call assembled
 *       with its Read chunks (until the call, and any procedure keeping it, is over), for each other RDMA Read while
 *       it runs and each reply's RDMA Writes until its Send completes; taken from a per-connection budget within a per-server
 *       budget ({@link Builder#connectionMemory}, {@link Builder#serverMemory}), waited for up to
 *       {@link Builder#memoryWait} when spent, then refused: the call is answered ERR_CHUNK (counted, logged at
 *       most once per 10 s) and the connection goes on. The budgets are shared fairly: memory given back goes first
 *       to the connection holding least ({@link MemoryBudget}), so no connection takes more than its share while
 *       others wait;
 *   <li>a chunk's RDMA Reads or Writes must complete within {@link Builder#transferTimeout} plus a second per MiB
 *       ({@link TransferDeadline}), else the connection is closed and the call's memory given back: a client that
 *       never completes an RDMA Read holds it no longer.
 * </ul>
 *
 * <p>A bad peer gets its RDMA_ERROR or RPC error and the others are unaffected; a peer that disconnects, even in
 * the middle of a call, has its connection and everything registered for it freed.
 */
public final class RpcRdmaServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcRdmaServer.class);

    private final RdmaServer server;
    private final RpcRdmaHeaderDecoder decoder;
    private final Builder config;
    private final ServerStatistics statistics = new ServerStatistics();
    private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
    private final MemoryBudget heap;
    private final MemoryBudget pinned;
    private final RateLimitedLog refusalLog = new RateLimitedLog(RpcRdmaServer.class, Duration.ofSeconds(10));
    private final ConnectionGate gate;
    private final IdleWatch idleWatch;
    private final ConnectionSetUp setUp;
    private volatile boolean closed;

    private RpcRdmaServer(Builder b) throws RdmaException {
        this.config = b;
        this.decoder = new RpcRdmaHeaderDecoder(b.limits);
        this.heap = MemoryBudget.of("server heap", b.serverHeap);
        this.pinned = MemoryBudget.of("server pinned", b.serverPinned);
        ConnectPrivateData ours = ConnectPrivateData.of(b.sendInline, b.receiveInline, false);
        ConnectionParameters parameters = ConnectionParameters.DEFAULTS.withPrivateData(ours.encode());
        ConnectionOptions options = new ConnectionOptions(
                b.sendQueueDepth, ServerConnection.receiveDepth(b.credits), ours.receiveSize(), parameters, b.timeout);
        this.gate = new ConnectionGate(
                new ConnectionAdmission(b.maxConnections, b.maxConnectionsPerAddress),
                refusalLog,
                "rpcrdma " + b.address);
        this.setUp = new ConnectionSetUp(b, decoder, statistics, heap, pinned, refusalLog, connections, () -> closed);
        this.server = RdmaServer.listen(b.address, options, this::accepted, gate);
        this.idleWatch = new IdleWatch(
                "rpcrdma-idle " + b.address,
                connections,
                b.idleTimeout,
                b.timeout,
                b.transferTimeout,
                statistics,
                b.logConnections ? Level.INFO : Level.DEBUG);
        long pinnedAtMost =
                b.serverPinned + b.maxConnections * (fixedPinnedBytesPerConnection() + b.idleRegisteredBytes);
        LockedMemory.warnIfBelow(
                pinnedAtMost,
                () -> "listening on " + b.address + ": this server may register up to "
                        + pinnedAtMost + " (server pinned " + b.serverPinned + " + " + b.maxConnections
                        + " connections x ("
                        + fixedPinnedBytesPerConnection() + " + " + b.idleRegisteredBytes + " idle chunk buffers)"
                        + "): registrations may fail under load; raise the limit or lower serverMemory/maxConnections");
        LOG.atDebug().log(() -> "listening on " + b.address + ": at most " + b.maxConnections
                + " connections of " + b.credits + " credits, " + fixedPinnedBytesPerConnection() + " bytes pinned"
                + " each; call memory " + heap + ", " + pinned);
    }

    /** {@return the memory registered for each connection, whatever its calls: receive and send buffers} */
    public long fixedPinnedBytesPerConnection() {
        int receiveSize = ConnectPrivateData.of(config.sendInline, config.receiveInline, false)
                .receiveSize();
        return (long) ServerConnection.receiveDepth(config.credits) * receiveSize
                + (long) config.credits * config.sendInline;
    }

    /** {@return the connections open now (for tests in this package: their registrations and chunk pools)} */
    Set<ServerConnection> openConnections() {
        return Set.copyOf(connections);
    }

    /** {@return the server's heap budget for calls (its {@link MemoryBudget#used()} and peak, for monitoring)} */
    public MemoryBudget heapBudget() {
        return heap;
    }

    /** {@return the server's budget of memory registered for calls' RDMA Reads and Writes} */
    public MemoryBudget pinnedBudget() {
        return pinned;
    }

    /**
     * {@return connection requests rejected: the server or the client's address had its most connections
     *         ({@link #admission()} tells which), or the client offered no RDMA Read resources}
     */
    public long refusedConnections() {
        return server.refusedConnections();
    }

    /** {@return the connection caps' counts: open, admitted, refused for each cap} */
    public ConnectionAdmission admission() {
        return gate.admission();
    }

    /** {@return connection requests refused because the client offered no RDMA Read resources (responder 0)} */
    public long refusedForNoReadResources() {
        return gate.refusedForNoReadResources();
    }

    /**
     * Starts building a server.
     *
     * @param service runs the calls: an {@link org.panamardma.oncrpc.RpcDispatcher}, or any {@link RpcService}
     * @return a builder for a server running {@code service}
     */
    public static Builder builder(RpcService service) {
        return new Builder(service);
    }

    /** {@return the address listened on} */
    public InetSocketAddress address() {
        return server.address();
    }

    /** {@return the number of connections being served} */
    public int connectionCount() {
        return connections.size();
    }

    /** {@return counts of the paths calls and replies took, over all connections} */
    public ServerStatistics statistics() {
        return statistics;
    }

    /** Runs on the listener's event thread: must not block; the connection is set up on a virtual thread. */
    private void accepted(RdmaConnection rdma) {
        if (closed) {
            Thread.ofVirtual().start(rdma::close);
            return;
        }
        Thread.ofVirtual().name("rpcrdma-setup " + rdma.name()).start(() -> setUp.setUp(rdma));
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        closed = true;
        idleWatch.close();
        for (ServerConnection c : connections) {
            c.close();
        }
        server.close();
    }

    /** Settings of a server; {@link #start()} listens. */
    public static final class Builder {
        final RpcService service;
        InetSocketAddress address;
        int receiveInline = 4096;
        int sendInline = 4096;
        int credits = 32;
        int maxCallSize = 16 << 20;
        int maxReplySize = 16 << 20;
        int maxRdmaReads = 16;
        int sendQueueDepth = 128;
        HeaderLimits limits = HeaderLimits.DEFAULT;
        Duration timeout = Duration.ofSeconds(30);
        int maxConnections = 128;
        int maxConnectionsPerAddress = 16;
        Duration idleTimeout = Duration.ofMinutes(6);
        Duration transferTimeout = Duration.ofSeconds(5);
        long connectionHeap = 64L << 20;
        long connectionPinned = 64L << 20;
        long idleRegisteredBytes = 8L << 20;
        long serverHeap = 512L << 20;
        long serverPinned = 256L << 20;
        Duration memoryWait = Duration.ofSeconds(10);
        boolean logConnections;

        private Builder(RpcService service) {
            this.service = Objects.requireNonNull(service, "service");
        }

        /**
         * The address to listen on (its device is the one rdma_cm finds for it); port 0 is not allowed.
         *
         * @param address the address
         * @return this builder
         */
        public Builder bind(InetSocketAddress address) {
            if (Objects.requireNonNull(address, "address").getPort() == 0) {
                // the listener could not tell which port rdma_cm chose: clients need a known one
                throw new IllegalArgumentException("give a port: " + address);
            }
            this.address = address;
            return this;
        }

        /**
         * The largest inline message received (the receive buffer size), a multiple of 1024; 4096 by default.
         *
         * @param bytes the receive inline size
         * @return this builder
         */
        public Builder receiveInline(int bytes) {
            this.receiveInline = bytes;
            return this;
        }

        /**
         * The largest inline message sent, before the client's receive size limits it; 4096 by default.
         *
         * @param bytes the send inline size
         * @return this builder
         */
        public Builder sendInline(int bytes) {
            this.sendInline = bytes;
            return this;
        }

        /**
         * The most credits granted per connection; 32 by default.
         *
         * @param credits the credit limit
         * @return this builder
         */
        public Builder credits(int credits) {
            if (credits < 1) {
                throw new IllegalArgumentException("at least one credit");
            }
            this.credits = credits;
            return this;
        }

        /**
         * The largest call (with its Read chunks) and reply (inline or in the Reply chunk); 16 MiB by default.
         *
         * @param call the largest call, in bytes
         * @param reply the largest reply, in bytes
         * @return this builder
         */
        public Builder maxMessageSizes(int call, int reply) {
            this.maxCallSize = call;
            this.maxReplySize = reply;
            return this;
        }

        /**
         * Limits enforced on received headers.
         *
         * @param limits the limits
         * @return this builder
         */
        public Builder headerLimits(HeaderLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * RDMA operations in flight per connection (the send queue depth); 128 by default.
         *
         * @param depth the send queue depth
         * @return this builder
         */
        public Builder sendQueueDepth(int depth) {
            this.sendQueueDepth = depth;
            return this;
        }

        /**
         * How long a Send or a close may take; 30 s by default. RDMA Reads and Writes of chunks have their own,
         * shorter deadline ({@link #transferTimeout}).
         *
         * @param timeout the timeout
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * The most connections served at once (being set up or established); 128 by default.
         *
         * @param connections the most connections
         * @return this builder
         */
        public Builder maxConnections(int connections) {
            if (connections < 1) {
                throw new IllegalArgumentException("at least one connection, not " + connections);
            }
            this.maxConnections = connections;
            return this;
        }

        /**
         * The most connections from one client address at once; 16 by default (Linux's nconnect goes up to 16), so
         * that one host cannot take every connection and lock the others out.
         *
         * @param connections the most connections from one address
         * @return this builder
         */
        public Builder maxConnectionsPerAddress(int connections) {
            if (connections < 1) {
                throw new IllegalArgumentException("at least one connection per address, not " + connections);
            }
            this.maxConnectionsPerAddress = connections;
            return this;
        }

        /**
         * How long a connection with no call taken or in progress stays open; 6 minutes by default (sunrpc's
         * {@code svc_conn_age_period}).
         *
         * @param timeout the idle timeout
         * @return this builder
         */
        public Builder idleTimeout(Duration timeout) {
            if (Objects.requireNonNull(timeout, "timeout").isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("idle timeout must be positive: " + timeout);
            }
            this.idleTimeout = timeout;
            return this;
        }

        /**
         * How long a chunk's RDMA Reads or Writes may take, plus a second per MiB they move; 5 s by default. Past it
         * the connection is closed and the call's memory given back ({@link TransferDeadline}): found by the server's
         * watch, which looks every quarter of the shortest of this, the timeout and the idle timeout (10 ms to 10 s),
         * so a stalled transfer is cut off at most that much after its deadline.
         *
         * @param timeout the transfer timeout
         * @return this builder
         */
        public Builder transferTimeout(Duration timeout) {
            new TransferDeadline(Objects.requireNonNull(timeout, "timeout")); // checks it is positive
            this.transferTimeout = timeout;
            return this;
        }

        /**
         * What the calls of one connection may hold at once: heap bytes (Long Calls, replies beyond the Send buffer)
         * and pinned bytes (calls assembled with their Read chunks, memory registered while an RDMA Read or Write
         * runs); 64 MiB each by default.
         * Each must hold the largest call and reply ({@link #maxMessageSizes}).
         *
         * @param heapBytes the heap budget per connection
         * @param pinnedBytes the pinned budget per connection
         * @return this builder
         */
        public Builder connectionMemory(long heapBytes, long pinnedBytes) {
            this.connectionHeap = heapBytes;
            this.connectionPinned = pinnedBytes;
            return this;
        }

        /**
         * What the calls of all connections may hold at once; 512 MiB heap and 256 MiB pinned by default. Pinned
         * memory counts against the process's RLIMIT_MEMLOCK: keep it, plus {@code maxConnections} times the fixed
         * buffers of a connection, below that limit, or registrations will fail.
         *
         * @param heapBytes the heap budget of the server
         * @param pinnedBytes the pinned budget of the server
         * @return this builder
         */
        public Builder serverMemory(long heapBytes, long pinnedBytes) {
            this.serverHeap = heapBytes;
            this.serverPinned = pinnedBytes;
            return this;
        }

        /**
         * Whether each connection's start (with the client's RFC 8797 private data and the connection's settings)
         * and end is logged at INFO; at DEBUG otherwise, the default.
         *
         * @param log whether to log connections at INFO
         * @return this builder
         */
        public Builder logConnections(boolean log) {
            this.logConnections = log;
            return this;
        }

        /**
         * How much registered memory for chunk data (RDMA Read sinks, reply RDMA Write sources) a connection keeps
         * between calls, so that the next call registers nothing; 8 MiB by default (four 1 MiB NFS READ replies
         * and four 1 MiB WRITE payloads). Memory beyond it is deregistered when its transfer is done. 0 registers
         * per call. Counts against RLIMIT_MEMLOCK with the fixed buffers.
         *
         * @param bytes the idle registered bytes per connection
         * @return this builder
         */
        public Builder idleRegisteredBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("idle registered bytes must not be negative: " + bytes);
            }
            this.idleRegisteredBytes = bytes;
            return this;
        }

        /**
         * How long a call waits for memory other calls hold before it is refused (ERR_CHUNK); 10 s by default.
         *
         * @param wait the longest wait for memory
         * @return this builder
         */
        public Builder memoryWait(Duration wait) {
            this.memoryWait = Objects.requireNonNull(wait, "wait");
            return this;
        }

        /**
         * Listens and starts accepting.
         *
         * @return the running server
         * @throws RdmaException if it cannot listen (nothing is left open)
         */
        public RpcRdmaServer start() throws RdmaException {
            Objects.requireNonNull(address, "bind(address) first");
            long largest = Math.max(maxCallSize, maxReplySize);
            if (connectionHeap < largest
                    || connectionPinned < largest
                    || serverHeap < connectionHeap
                    || serverPinned < connectionPinned) {
                throw new IllegalArgumentException("memory budgets must hold the largest call or reply (" + largest
                        + " bytes), a connection's within the server's: connection " + connectionHeap + " heap, "
                        + connectionPinned + " pinned; server " + serverHeap + " heap, " + serverPinned + " pinned");
            }
            return new RpcRdmaServer(this);
        }
    }
}
