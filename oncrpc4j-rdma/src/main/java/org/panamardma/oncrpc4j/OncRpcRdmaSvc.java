package org.panamardma.oncrpc4j;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.function.Supplier;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.panamardma.oncrpc.limits.MemoryBudget;
import org.panamardma.rpcrdma.server.RpcRdmaServer;
import org.panamardma.rpcrdma.server.ServerStatistics;

/**
 * oncrpc4j programs ({@link RpcDispatchable}s) served over RPC-over-RDMA version 1 (RFC 8166, with RFC 8797's
 * connection private data) by this project's {@link RpcRdmaServer}: the counterpart of oncrpc4j's {@code OncRpcSvc}
 * for RDMA, built by {@link OncRpcRdmaSvcBuilder}. The same program instances can be served by an oncrpc4j
 * {@code OncRpcSvc} over TCP at the same time.
 *
 * <p>Each call is decoded by oncrpc4j ({@code RpcCall}, {@code Xdr}) from the bytes the RDMA server assembled
 * (inline, Read chunks, Long Calls) and dispatched as oncrpc4j's dispatcher does; the reply the program gives
 * {@code call.reply(...)} goes back inline, through the client's Reply chunk, or, for data the program encoded with
 * {@code Xdr#xdrEncodeFileChunk}, by RDMA Write into the client's Write chunk. Every limit of the RDMA server holds
 * (connections, credits, message sizes, memory budgets); the file chunks' memory has a budget of its own
 * ({@link OncRpcRdmaSvcBuilder#withFileChunkMemory}). See {@link OncRpcBridge} for what is answered how.
 */
public final class OncRpcRdmaSvc implements AutoCloseable {
    private final OncRpcBridge bridge;
    private final Supplier<RpcRdmaServer.Builder> server;
    private volatile RpcRdmaServer running;

    OncRpcRdmaSvc(OncRpcBridge bridge, Supplier<RpcRdmaServer.Builder> server) {
        this.bridge = Objects.requireNonNull(bridge, "bridge");
        this.server = Objects.requireNonNull(server, "server");
    }

    /**
     * Listens (rdma_cm) and serves.
     *
     * @throws IOException if the address cannot be listened on (no RDMA device has it, the port is taken), an
     *                     {@link org.panamardma.verbs.RdmaException}
     * @throws IllegalStateException if started already
     */
    public synchronized void start() throws IOException {
        if (running != null) {
            throw new IllegalStateException("started already");
        }
        running = server.get().start();
    }

    /**
     * Stops: calls waiting for their program's reply are answered SYSTEM_ERR, then every connection is closed and
     * the listener with them. The programs and an executor given to the builder are left as they are.
     */
    public synchronized void stop() {
        bridge.close();
        if (running != null) {
            running.close();
        }
    }

    /** {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /**
     * Serves {@code service} for {@code program} from now on, in place of the one registered for it before.
     *
     * @param program the program number and version
     * @param service what answers its calls
     */
    public void register(OncRpcProgram program, RpcDispatchable service) {
        bridge.register(program, service);
    }

    /**
     * Stops serving {@code program}: its calls get PROG_UNAVAIL.
     *
     * @param program the program number and version
     */
    public void unregister(OncRpcProgram program) {
        bridge.unregister(program);
    }

    /**
     * The address, as oncrpc4j's {@code OncRpcSvc} names it.
     *
     * @return the address listened on
     */
    public InetSocketAddress getInetSocketAddress() {
        return server().address();
    }

    /**
     * The server under this service; only once started.
     *
     * @return the RPC-over-RDMA server (its budgets, connection count, statistics)
     */
    public RpcRdmaServer server() {
        RpcRdmaServer s = running;
        if (s == null) {
            throw new IllegalStateException("not started");
        }
        return s;
    }

    /**
     * The server's statistics.
     *
     * @return the paths calls and replies took (inline, Read chunks, Write list, Reply chunk, errors)
     */
    public ServerStatistics statistics() {
        return server().statistics();
    }

    /**
     * Counts the calls whose program never answered.
     *
     * @return calls answered SYSTEM_ERR because their program did not reply within the reply timeout
     */
    public long unansweredCalls() {
        return bridge.unanswered();
    }

    /**
     * The file chunks' memory budget.
     *
     * @return the memory the replies' file chunks hold (used, peak, refusals)
     */
    public MemoryBudget fileChunkBudget() {
        return bridge.fileChunks().budget();
    }
}
