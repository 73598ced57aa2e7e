package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcClient;
import org.panamardma.oncrpc.tcp.RpcConnectionException;
import org.panamardma.oncrpc.tcp.RpcException;
import org.panamardma.oncrpc.tcp.RpcReplyException;
import org.panamardma.oncrpc.tcp.RpcTimeoutException;
import org.panamardma.oncrpc.tcp.TcpRpcClient;
import org.panamardma.oncrpc.tcp.TcpRpcServer;
import org.panamardma.rpcrdma.server.EchoProgram;

/** {@link RpcClients} with tcp:// end to end against {@link TcpRpcServer}; the RDMA side needs a device. */
class RpcClientsTest {
    static final Duration T = Duration.ofSeconds(30);

    @Test
    void tcpUriEchoesThroughTheInterface() throws Exception {
        try (TcpRpcServer server = TcpRpcServer.builder(EchoProgram.dispatcher())
                        .replyBufferSize(256 << 10)
                        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                        .start();
                RpcClient client = RpcClients.connect(URI.create("tcp://127.0.0.1:" + server.port()))) {
            assertInstanceOf(TcpRpcClient.class, client);
            assertEquals("tcp://127.0.0.1:" + server.port(), client.describe());
            for (int size : new int[] {0, 1, 4001, 100_000}) {
                byte[] bytes = EchoProgram.pattern(size, size);
                byte[] back = client.invoke(
                        EchoProgram.PROGRAM,
                        EchoProgram.VERSION,
                        EchoProgram.ECHO_PLAIN,
                        OpaqueAuth.NONE,
                        out -> out.putOpaque(bytes, EchoProgram.MAX),
                        in -> in.getOpaqueBytes(EchoProgram.MAX),
                        T);
                assertArrayEquals(bytes, back, "echo of " + size);
            }
            RpcReplyException e = assertThrows(
                    RpcReplyException.class,
                    () -> client.invoke(
                            EchoProgram.PROGRAM, EchoProgram.VERSION, 99, OpaqueAuth.NONE, out -> {}, in -> null, T));
            assertEquals(AcceptStat.PROC_UNAVAIL, e.acceptStat());
            client.close();
            ExecutionException closed = assertThrows(
                    ExecutionException.class,
                    () -> client.call(
                                    EchoProgram.PROGRAM,
                                    EchoProgram.VERSION,
                                    EchoProgram.NULL,
                                    OpaqueAuth.NONE,
                                    out -> {},
                                    in -> null,
                                    T)
                            .get(30, TimeUnit.SECONDS));
            assertInstanceOf(RpcConnectionException.class, closed.getCause());
        }
    }

    @Test
    void badUrisAreRefusedBeforeConnecting() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> RpcClients.connect(URI.create("udp://127.0.0.1:111")));
        assertTrue(e.getMessage().contains("use tcp://host:port or rdma://host:port"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RpcClients.connect(URI.create("tcp://127.0.0.1")));
        assertThrows(IllegalArgumentException.class, () -> RpcClients.connect(URI.create("tcp://127.0.0.1:1"), -2));
    }

    @Test
    void nobodyListeningIsAnIoException() throws Exception {
        int port;
        try (var s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        int closedPort = port;
        assertThrows(IOException.class, () -> RpcClients.connect(URI.create("tcp://127.0.0.1:" + closedPort)));
    }

    @Test
    void rdmaFailuresBecomeTheSameExceptionsAsOverTcp() {
        Duration timeout = Duration.ofSeconds(5);
        RpcException t = RdmaRpcClient.translate(new RpcRdmaException.Timeout("no reply"), "call 1.1.1", timeout);
        assertInstanceOf(RpcTimeoutException.class, t);
        assertEquals(timeout, ((RpcTimeoutException) t).timeout());
        assertInstanceOf(RpcRdmaException.Timeout.class, t.getCause());
        RpcException lost = RdmaRpcClient.translate(
                new java.util.concurrent.CompletionException(new RpcRdmaException.ConnectionLost("gone", null)),
                "call 1.1.1",
                timeout);
        assertInstanceOf(RpcConnectionException.class, lost);
        assertTrue(lost.getMessage().contains("gone"), lost.getMessage());
        RpcException chunk = RdmaRpcClient.translate(new RpcRdmaException.ChunkError("ERR_CHUNK", 2), "c", timeout);
        assertEquals(RpcException.class, chunk.getClass());
        assertInstanceOf(RpcRdmaException.ChunkError.class, chunk.getCause());
        RpcException args = RdmaRpcClient.translate(
                new org.panamardma.xdr.XdrException(
                        org.panamardma.xdr.XdrException.Reason.LIMIT_EXCEEDED, 0, "too long"),
                "c",
                timeout);
        assertTrue(args.getMessage().contains("arguments of c do not encode"), args.getMessage());
    }
}
