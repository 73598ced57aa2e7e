package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcClient;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.tcp.RpcException;
import org.panamardma.oncrpc.tcp.RpcReplyException;
import org.panamardma.oncrpc.tcp.TcpRpcClient;
import org.panamardma.oncrpc.tcp.TcpRpcServer;
import org.panamardma.rpcrdma.client.RdmaRpcClient;
import org.panamardma.rpcrdma.client.RpcClients;
import org.panamardma.rpcrdma.client.RpcRdmaException;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * {@link RpcClients#connect(URI, long)} on a real device: one dispatcher served by an {@link RpcRdmaServer} and a
 * {@link TcpRpcServer} on the peer device's address; the same calls through the {@link RpcClient} interface over
 * {@code rdma://} and {@code tcp://} give the same results and the same exceptions.
 */
abstract class RpcClientsDeviceTests {
    static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final AtomicInteger PORTS = new AtomicInteger(20_000 + new Random().nextInt(9_000));

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** Both servers on the peer's address, one dispatcher: {@code [rdma://..., tcp://...]}. */
    List<URI> servers(RdmaTestDevice device) throws Exception {
        RpcDispatcher dispatcher = EchoProgram.dispatcher();
        String ip = RpcRdmaServerDeviceTests.peerAddress(device).getHostAddress();
        RpcRdmaServer rdma = RpcRdmaServer.builder(dispatcher)
                .bind(new InetSocketAddress(ip, PORTS.getAndIncrement()))
                .timeout(TIMEOUT)
                .start();
        open.add(rdma);
        TcpRpcServer tcp = TcpRpcServer.builder(dispatcher)
                .bind(new InetSocketAddress(ip, 0))
                .maxRecordSize(1 << 20)
                .replyBufferSize(1 << 20)
                .start();
        open.add(tcp);
        return List.of(
                URI.create("rdma://" + ip + ":" + rdma.address().getPort()),
                URI.create("tcp://" + ip + ":" + tcp.port()));
    }

    RpcClient connect(URI uri, long maxResultsSize) throws IOException {
        RpcClient c = RpcClients.connect(uri, maxResultsSize);
        open.add(c);
        return c;
    }

    static byte[] echo(RpcClient c, int procedure, byte[] bytes) throws Exception {
        return c.invoke(
                EchoProgram.PROGRAM,
                EchoProgram.VERSION,
                procedure,
                OpaqueAuth.NONE,
                procedure == EchoProgram.ECHO
                        ? out -> out.putEligibleOpaque(java.lang.foreign.MemorySegment.ofArray(bytes), EchoProgram.MAX)
                        : out -> out.putOpaque(bytes, EchoProgram.MAX),
                in -> in.getOpaqueBytes(EchoProgram.MAX),
                TIMEOUT);
    }

    @Test
    void rdmaAndTcpUrisGiveTheSameEchoes(RdmaTestDevice device) throws Exception {
        List<URI> uris = servers(device);
        RpcClient rdma = connect(uris.get(0), 300_000);
        RpcClient tcp = connect(uris.get(1), 300_000);
        assertInstanceOf(RdmaRpcClient.class, rdma);
        assertInstanceOf(TcpRpcClient.class, tcp);
        assertEquals(uris.get(0).toString(), rdma.describe());
        assertEquals(uris.get(1).toString(), tcp.describe());
        for (int procedure : new int[] {EchoProgram.ECHO_PLAIN, EchoProgram.ECHO}) {
            for (int size : new int[] {0, 1, 1000, 4001, 100_000, 262_144}) {
                byte[] bytes = EchoProgram.pattern(size, size + procedure);
                byte[] overRdma = echo(rdma, procedure, bytes);
                byte[] overTcp = echo(tcp, procedure, bytes);
                assertArrayEquals(bytes, overRdma, "rdma echo " + procedure + "/" + size);
                assertArrayEquals(overTcp, overRdma, "same over both " + procedure + "/" + size);
            }
        }
        for (RpcClient c : List.of(rdma, tcp)) {
            RpcReplyException e = assertThrows(
                    RpcReplyException.class,
                    () -> c.invoke(
                            EchoProgram.PROGRAM,
                            EchoProgram.VERSION,
                            77,
                            OpaqueAuth.NONE,
                            out -> {},
                            in -> null,
                            TIMEOUT));
            assertEquals(AcceptStat.PROC_UNAVAIL, e.acceptStat(), c.describe());
        }
        RpcRdmaServer server = (RpcRdmaServer) open.get(0);
        assertTrue(
                server.statistics().positionZeroCalls() + server.statistics().readChunkCalls() > 0,
                "large calls went by Read chunks over rdma://");
        assertTrue(server.statistics().replies(ReplyPath.REPLY_CHUNK) > 0, "large replies by the Reply chunk");
    }

    /** The one difference: without a results size, an RDMA reply must fit inline; the server says ERR_CHUNK. */
    @Test
    void overRdmaALargeReplyNeedsItsSizeUpFront(RdmaTestDevice device) throws Exception {
        List<URI> uris = servers(device);
        RpcClient rdma = connect(uris.get(0), -1);
        RpcClient tcp = connect(uris.get(1), -1);
        byte[] bytes = EchoProgram.pattern(20_000, 3);
        assertArrayEquals(bytes, echo(tcp, EchoProgram.ECHO_PLAIN, bytes));
        RpcException e = assertThrows(RpcException.class, () -> echo(rdma, EchoProgram.ECHO_PLAIN, bytes));
        System.out.println("a 20000-byte reply over rdma:// without a results size: " + e);
        assertEquals(RpcException.class, e.getClass());
        assertInstanceOf(RpcRdmaException.ChunkError.class, e.getCause());
        byte[] small = EchoProgram.pattern(2000, 4);
        assertArrayEquals(small, echo(rdma, EchoProgram.ECHO_PLAIN, small), "the connection survives");
    }
}
