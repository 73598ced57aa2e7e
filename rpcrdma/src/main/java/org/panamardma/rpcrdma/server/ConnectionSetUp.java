package org.panamardma.rpcrdma.server;

import java.util.Set;
import java.util.function.BooleanSupplier;
import org.panamardma.oncrpc.limits.MemoryBudget;
import org.panamardma.oncrpc.limits.RateLimitedLog;
import org.panamardma.rpcrdma.ConnectPrivateData;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.RdmaConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Turns a connection an {@link RpcRdmaServer} accepted into a served {@link ServerConnection}: settles the inline
 * sizes with the client's RFC 8797 private data, gives the connection its share of the server's memory budgets,
 * and starts it. Runs on a virtual thread of its own per connection (never the listener's event thread). A
 * connection that cannot be set up is closed, and the server goes on.
 */
final class ConnectionSetUp {
    private static final Logger LOG = LoggerFactory.getLogger(RpcRdmaServer.class);

    private final RpcRdmaServer.Builder config;
    private final RpcRdmaHeaderDecoder decoder;
    private final ServerStatistics statistics;
    private final MemoryBudget heap;
    private final MemoryBudget pinned;
    private final RateLimitedLog refusalLog;
    private final Set<ServerConnection> connections;
    private final BooleanSupplier serverClosed;

    ConnectionSetUp(
            RpcRdmaServer.Builder config,
            RpcRdmaHeaderDecoder decoder,
            ServerStatistics statistics,
            MemoryBudget heap,
            MemoryBudget pinned,
            RateLimitedLog refusalLog,
            Set<ServerConnection> connections,
            BooleanSupplier serverClosed) {
        this.config = config;
        this.decoder = decoder;
        this.statistics = statistics;
        this.heap = heap;
        this.pinned = pinned;
        this.refusalLog = refusalLog;
        this.connections = connections;
        this.serverClosed = serverClosed;
    }

    void setUp(RdmaConnection rdma) {
        ConnectPrivateData client = ConnectPrivateData.decode(rdma.peerPrivateData());
        // RFC 8797 section 7.2: send no more inline than the client can receive (1024 if it said nothing).
        int sendInline = Math.min(config.sendInline, client.receiveSize());
        int receiveInline = ConnectPrivateData.of(config.sendInline, config.receiveInline, false)
                .receiveSize();
        ConnectionSettings settings = new ConnectionSettings(
                receiveInline,
                sendInline,
                config.credits,
                config.maxCallSize,
                config.maxReplySize,
                config.maxRdmaReads);
        try {
            ServerConnection[] self = new ServerConnection[1];
            String peer = rdma.name();
            ConnectionMemory memory = new ConnectionMemory(
                    heap.child(peer + " heap", config.connectionHeap),
                    pinned.child(peer + " pinned", config.connectionPinned),
                    config.memoryWait.toNanos());
            Level level = config.logConnections ? Level.INFO : Level.DEBUG;
            ServerConnection c = new ServerConnection(
                    rdma,
                    config.service,
                    decoder,
                    settings,
                    statistics,
                    config.timeout.toMillis(),
                    new TransferDeadline(config.transferTimeout),
                    memory,
                    refusalLog,
                    config.idleRegisteredBytes,
                    () -> {
                        connections.remove(self[0]);
                        LOG.atLevel(level).log(() -> peer + ": closed");
                    });
            self[0] = c;
            connections.add(c);
            // the server may have closed while this ran: its close() did not see this connection, so close it here
            if (serverClosed.getAsBoolean()) {
                c.close();
                return;
            }
            c.start();
            LOG.atLevel(level).log(() -> rdma.name() + ": serving, client private data " + client + ", " + settings);
        } catch (RdmaException | RuntimeException e) {
            LOG.warn(rdma.name() + ": setting up the connection", e);
            Thread.ofVirtual().start(rdma::close);
        }
    }
}
