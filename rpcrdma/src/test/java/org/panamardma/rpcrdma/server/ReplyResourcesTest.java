package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.ReplyResources;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.tcp.TcpRpcClient;
import org.panamardma.oncrpc.tcp.TcpRpcServer;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.HeaderLimits;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.XdrEncodable;

/**
 * {@link ReplyResources}: what a procedure's results point into stays valid until the transport has moved the data
 * (an RDMA Write into the client's Write chunk, a TCP write), and is released right after, whatever the outcome.
 */
class ReplyResourcesTest {
    static final int PROGRAM = 0x2000_5152;

    /** A procedure answering with {@code size} bytes of native memory it holds until the reply is sent. */
    static RpcDispatcher dispatcher(List<String> events, int size) {
        return RpcDispatcher.builder()
                .register(PROGRAM, 1, 1, in -> in.getInt(), (Integer seed, RpcCall call) -> {
                    Arena arena = Arena.ofShared();
                    MemorySegment data = arena.allocate(size);
                    for (int i = 0; i < size; i++) {
                        data.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 3 + seed));
                    }
                    events.add("available " + ReplyResources.available());
                    ReplyResources.holdUntilSent(() -> {
                        events.add("released");
                        arena.close(); // the data is gone after this: a transport reading it later would fail
                    });
                    return (XdrEncodable) out -> out.putEligibleOpaque(data, size);
                })
                .build();
    }

    static byte[] expected(int size, int seed) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 3 + seed);
        }
        return b;
    }

    @Test
    void theRdmaHandlerReleasesAfterTheWriteChunkIsWritten() throws IOException {
        List<String> events = new CopyOnWriteArrayList<>();
        InMemoryChunkTransfers client = new InMemoryChunkTransfers();
        ChunkTransfers watched = new ChunkTransfers() {
            @Override
            public void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
                client.read(segments, destination);
            }

            @Override
            public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
                events.add("rdma write");
                client.write(source, segments);
            }
        };
        ConnectionSettings settings = new ConnectionSettings(4096, 1024, 8, 1 << 20, 1 << 20, 4);
        RpcRdmaCallHandler handler = new RpcRdmaCallHandler(
                dispatcher(events, 5000),
                new RpcRdmaHeaderDecoder(HeaderLimits.DEFAULT),
                settings,
                watched,
                new ServerStatistics(),
                ConfigRdmaProgram.INSTANCE);
        RdmaSegment target = client.registerEmpty(8192);
        RpcCall call = RpcCall.of(7, PROGRAM, 1, 1, OpaqueAuth.NONE, OpaqueAuth.NONE);
        byte[] message = RpcRdmaCallHandlerTest.concat(
                RpcRdmaCallHandlerTest.header(
                        new RdmaMsg(7, 1, new ChunkLists(List.of(), List.of(WriteChunk.of(target)), Optional.empty()))),
                callBytes(call),
                RpcRdmaCallHandlerTest.words(9));
        RpcRdmaCallHandler.Outcome o =
                handler.handle(MemorySegment.ofArray(message), MemorySegment.ofArray(new byte[settings.sendInline()]));
        assertEquals(ReplyPath.WRITE_LIST, o.path());
        assertEquals(List.of("available true", "rdma write", "released"), events);
        assertArrayEquals(expected(5000, 9), java.util.Arrays.copyOf(client.contents(target), 5000));
    }

    static byte[] callBytes(RpcCall call) {
        byte[] b = new byte[org.panamardma.oncrpc.RpcMessageCodec.size(call)];
        org.panamardma.oncrpc.RpcMessageCodec.encode(call, new org.panamardma.xdr.XdrEncoder(MemorySegment.ofArray(b)));
        return b;
    }

    @Test
    void theTcpServerReleasesAfterTheReplyIsWritten() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        try (TcpRpcServer server = TcpRpcServer.builder(dispatcher(events, 100_000))
                        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                        .start();
                TcpRpcClient client = TcpRpcClient.connect(server.address(), 1 << 20)) {
            byte[] back = client.invoke(
                    PROGRAM,
                    1,
                    1,
                    OpaqueAuth.NONE,
                    out -> out.putInt(5),
                    in -> in.getOpaqueBytes(1 << 20),
                    Duration.ofSeconds(20));
            assertArrayEquals(expected(100_000, 5), back, "written from the procedure's memory before release");
            for (int i = 0; i < 200 && !events.contains("released"); i++) {
                Thread.sleep(10);
            }
            assertEquals(List.of("available true", "released"), events);
        }
    }

    @Test
    void outsideATransportNothingCanBeHeld() {
        assertFalse(ReplyResources.available());
        AtomicBoolean closed = new AtomicBoolean();
        assertThrows(IllegalStateException.class, () -> ReplyResources.holdUntilSent(() -> closed.set(true)));
        String r = ReplyResources.during(() -> {
            assertTrue(ReplyResources.available());
            ReplyResources.holdUntilSent(() -> closed.set(true));
            return "done";
        });
        assertEquals("done", r);
        assertTrue(closed.get());
    }
}
