package org.panamardma.examples;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcClient;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.tcp.TcpRpcServer;
import org.panamardma.rpcrdma.client.RpcClients;
import org.panamardma.rpcrdma.server.RpcRdmaServer;

/**
 * The README's "An RPC-over-RDMA server in 10 lines" ({@link #serve}) and its client ({@link #echo}): an echo
 * program served over RPC-over-RDMA and TCP at once, called by URI.
 */
public final class RpcIn10Lines {
    private RpcIn10Lines() {}

    /** The example's ONC RPC program number (in the range RFC 5531 leaves to users). */
    public static final int PROG = 0x2000_0177;

    /**
     * Serves the echo program on {@code host} (RDMA port 20050, TCP 20051) while {@code whileServing} runs: an
     * application would wait for its shutdown there.
     */
    public static void serve(String host, Runnable whileServing) throws Exception {
        // spotless:off (the README shows this region as written here: ReadmeExamplesTest)
        // README begin: rpc-server
        RpcDispatcher dispatcher = RpcDispatcher.builder()                                  // any ONC RPC program
                .register(PROG, 1, 1, in -> in.getOpaque(1 << 24),
                        (MemorySegment data, RpcCall call) -> out -> out.putEligibleOpaque(data, 1 << 24))
                .build();
        try (RpcRdmaServer rdma = RpcRdmaServer.builder(dispatcher)
                     .bind(new InetSocketAddress(host, 20050)).credits(32).start();       // rdma_cm, RFC 8797 data
             TcpRpcServer tcp = TcpRpcServer.builder(dispatcher).bind(new InetSocketAddress(host, 20051)).start()) {
            whileServing.run();                                     // one dispatcher, both transports, until it returns
        }
        // README end
        // spotless:on
    }

    /** Calls the echo program at {@code server} ({@code rdma://host:20050} or {@code tcp://host:20051}). */
    public static byte[] echo(URI server, byte[] bytes) throws Exception {
        // spotless:off (the README shows this region as written here: ReadmeExamplesTest)
        // README begin: rpc-client
        try (RpcClient c = RpcClients.connect(server, 1 << 20)) {    // rdma://10.77.0.2:20050 or tcp://10.77.0.2:20051
            return c.invoke(PROG, 1, 1, OpaqueAuth.NONE, out -> out.putOpaque(bytes, 1 << 24),
                    in -> in.getOpaqueBytes(1 << 24), Duration.ofSeconds(30));
        }
        // README end
        // spotless:on
    }
}
