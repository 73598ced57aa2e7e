package org.panamardma.rpcrdma.client;

import java.io.IOException;
import java.net.URI;
import org.panamardma.oncrpc.RpcClient;
import org.panamardma.oncrpc.tcp.TcpRpcClient;

/**
 * Connects an {@link RpcClient} chosen by URI: {@code tcp://host:port} gives a
 * {@link TcpRpcClient}, {@code rdma://host:port} an {@link RdmaRpcClient} over {@link RpcRdmaClient} (see
 * {@link RpcEndpoint} for what a URI may hold).
 *
 * <p>Why a plain factory here rather than a {@link java.util.ServiceLoader} lookup from {@code oncrpc}: the two
 * transports live in one module, so a service registry would add a {@code META-INF/services} file and a failure
 * mode (no provider found at run time) without decoupling anything that is shipped apart; {@code oncrpc} stays
 * RDMA-free either way, as this factory is in the RDMA client package, the one place that knows both. Should
 * {@code oncrpc} ever become its own artifact, a provider interface can be added without changing callers of
 * {@code connect}.
 */
public final class RpcClients {
    private RpcClients() {}

    /**
     * {@link #connect(URI, long)} with replies inline only over RDMA (4 MiB records over TCP).
     *
     * @param uri {@code tcp://host:port} or {@code rdma://host:port}
     * @return the connected client
     * @throws IOException if the connection cannot be made
     */
    public static RpcClient connect(URI uri) throws IOException {
        return connect(uri, -1);
    }

    /**
     * Connects.
     *
     * @param uri {@code tcp://host:port} or {@code rdma://host:port}
     * @param maxResultsSize the largest results the calls must be able to receive, {@code -1} for the transport's
     *     default: over RDMA a Reply chunk of this size is offered with each call when it exceeds the inline
     *     threshold (see {@link RdmaRpcClient}); over TCP the largest record accepted is raised to hold it when it
     *     exceeds {@link TcpRpcClient#DEFAULT_MAX_RECORD_SIZE}
     * @return the connected client, which fails calls with the same exceptions over either transport
     * @throws IllegalArgumentException if the URI is not one of the two forms (the message says why)
     * @throws IOException if the connection cannot be made ({@link org.panamardma.verbs.RdmaException} over RDMA)
     */
    public static RpcClient connect(URI uri, long maxResultsSize) throws IOException {
        RpcEndpoint endpoint = RpcEndpoint.parse(uri);
        if (maxResultsSize < -1) {
            throw new IllegalArgumentException("maxResultsSize " + maxResultsSize);
        }
        return switch (endpoint.transport()) {
            case TCP ->
                TcpRpcClient.connect(endpoint.address(), (int) Math.min(
                        Integer.MAX_VALUE - 1024,
                        Math.max(TcpRpcClient.DEFAULT_MAX_RECORD_SIZE, maxResultsSize + 1024)));
            case RDMA ->
                new RdmaRpcClient(
                        RpcRdmaClient.connect(endpoint.address(), RpcRdmaClientOptions.DEFAULTS), maxResultsSize);
        };
    }
}
