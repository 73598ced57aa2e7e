package org.panamardma.rpcrdma.server;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.rpcrdma.ConnectPrivateData;
import org.panamardma.rpcrdma.HeaderLimits;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;

/**
 * Serves an {@link RpcDispatcher} over RPC-over-RDMA version 1 (RFC 8166): listens with rdma_cm on an address (any
 * device whose address it is), accepts each client with this server's RFC 8797 private data and reads the
 * client's, then serves the connection's calls ({@link RpcRdmaCallHandler}). The same dispatcher can serve TCP
 * ({@link org.panamardma.oncrpc.tcp.TcpRpcServer}) at the same time.
 *
 * <p>Per connection: a queue pair with {@code credits + 4} receive buffers of {@link Builder#receiveInline} bytes,
 * posted before the accept and posted again as each message is taken (so a client that connects with RNR retry 0,
 * as Linux's does, never finds none within its credits), and {@code credits + 1} pre-registered send buffers of the
 * negotiated send threshold. Chunk data is moved by RDMA Read and Write through memory registered for the call.
 *
 * <p>A bad peer gets its RDMA_ERROR or RPC error and the others are unaffected; a peer that disconnects, even in
 * the middle of a call, has its connection and everything registered for it freed.
 */
public final class RpcRdmaServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RpcRdmaServer.class.getName());

    private final RdmaServer server;
    private final RpcDispatcher dispatcher;
    private final RpcRdmaHeaderDecoder decoder;
    private final Builder config;
    private final ServerStatistics statistics = new ServerStatistics();
    private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private RpcRdmaServer(Builder b) throws RdmaException {
        this.config = b;
        this.dispatcher = b.dispatcher;
        this.decoder = new RpcRdmaHeaderDecoder(b.limits);
        ConnectPrivateData ours = ConnectPrivateData.of(b.sendInline, b.receiveInline, false);
        ConnectionParameters parameters = ConnectionParameters.DEFAULTS.withPrivateData(ours.encode());
        ConnectionOptions options = new ConnectionOptions(b.sendQueueDepth, b.credits + 4, ours.receiveSize(),
                parameters, b.timeout);
        this.server = RdmaServer.listen(b.address, options, this::accepted);
    }

    /** @return a builder for a server running {@code dispatcher} */
    public static Builder builder(RpcDispatcher dispatcher) {
        return new Builder(dispatcher);
    }

    /** @return the address listened on */
    public InetSocketAddress address() {
        return server.address();
    }

    /** @return the number of connections being served */
    public int connectionCount() {
        return connections.size();
    }

    /** @return counts of the paths calls and replies took, over all connections */
    public ServerStatistics statistics() {
        return statistics;
    }

    /** Runs on the listener's event thread: must not block. */
    private void accepted(RdmaConnection rdma) {
        if (closed) {
            Thread.ofVirtual().start(rdma::close);
            return;
        }
        ConnectPrivateData client = ConnectPrivateData.decode(rdma.peerPrivateData());
        // RFC 8797 section 7.2: send no more inline than the client can receive (1024 if it said nothing).
        int sendInline = Math.min(config.sendInline, client.receiveSize());
        int receiveInline = ConnectPrivateData.of(config.sendInline, config.receiveInline, false).receiveSize();
        ConnectionSettings settings = new ConnectionSettings(receiveInline, sendInline, config.credits,
                config.maxCallSize, config.maxReplySize, config.maxRdmaReads);
        try {
            ServerConnection[] self = new ServerConnection[1];
            ServerConnection c = new ServerConnection(rdma, dispatcher, decoder, settings, statistics,
                    config.timeout.toMillis(), () -> connections.remove(self[0]));
            self[0] = c;
            connections.add(c);
            c.start();
            LOG.log(System.Logger.Level.DEBUG, rdma.name() + ": serving, client private data " + client
                    + ", " + settings);
        } catch (RdmaException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, rdma.name() + ": setting up the connection", e);
            Thread.ofVirtual().start(rdma::close);
        }
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        closed = true;
        for (ServerConnection c : connections) {
            c.close();
        }
        server.close();
    }

    /** Settings of a server; {@link #start()} listens. */
    public static final class Builder {
        private final RpcDispatcher dispatcher;
        private InetSocketAddress address;
        private int receiveInline = 4096;
        private int sendInline = 4096;
        private int credits = 32;
        private int maxCallSize = 16 << 20;
        private int maxReplySize = 16 << 20;
        private int maxRdmaReads = 16;
        private int sendQueueDepth = 128;
        private HeaderLimits limits = HeaderLimits.DEFAULT;
        private Duration timeout = Duration.ofSeconds(30);

        private Builder(RpcDispatcher dispatcher) {
            this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        }

        /** The address to listen on (its device is the one rdma_cm finds for it); port 0 is not allowed. */
        public Builder bind(InetSocketAddress address) {
            if (Objects.requireNonNull(address, "address").getPort() == 0) {
                // the listener could not tell which port rdma_cm chose: clients need a known one
                throw new IllegalArgumentException("give a port: " + address);
            }
            this.address = address;
            return this;
        }

        /** The largest inline message received (the receive buffer size), a multiple of 1024; 4096 by default. */
        public Builder receiveInline(int bytes) {
            this.receiveInline = bytes;
            return this;
        }

        /** The largest inline message sent, before the client's receive size limits it; 4096 by default. */
        public Builder sendInline(int bytes) {
            this.sendInline = bytes;
            return this;
        }

        /** The most credits granted per connection; 32 by default. */
        public Builder credits(int credits) {
            if (credits < 1) {
                throw new IllegalArgumentException("at least one credit");
            }
            this.credits = credits;
            return this;
        }

        /** The largest call (with its Read chunks) and reply (inline or in the Reply chunk); 16 MiB by default. */
        public Builder maxMessageSizes(int call, int reply) {
            this.maxCallSize = call;
            this.maxReplySize = reply;
            return this;
        }

        /** Limits enforced on received headers. */
        public Builder headerLimits(HeaderLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** RDMA operations in flight per connection (the send queue depth); 128 by default. */
        public Builder sendQueueDepth(int depth) {
            this.sendQueueDepth = depth;
            return this;
        }

        /** How long an RDMA operation, a Send or a close may take; 30 s by default. */
        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** Listens and starts accepting. */
        public RpcRdmaServer start() throws RdmaException {
            Objects.requireNonNull(address, "bind(address) first");
            return new RpcRdmaServer(this);
        }
    }
}
