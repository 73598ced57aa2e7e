package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.tcp.TcpRpcClient;
import org.panamardma.oncrpc.tcp.TcpRpcServer;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testing.RdmaResources;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * {@link RpcRdmaServer} on a real device, subclassed per transport: the server listens on the peer device's address
 * (a fresh port per test), a hand-driven requester ({@link RawPeer}) connects from the test device and sends good
 * calls over every path and bad headers, each answer checked byte for byte.
 */
abstract class RpcRdmaServerDeviceTests {
    static final Duration TIMEOUT = Duration.ofSeconds(90);
    static final long WAIT = 120;
    private static final AtomicInteger PORTS = ServerRig.ports(40_000, 10_000);
    private static final AtomicInteger XIDS = new AtomicInteger(0x1000);

    @RegisterExtension
    final ServerRig rig = new ServerRig(PORTS);

    static InetAddress peerAddress(RdmaTestDevice device) {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer device"));
        return peer.ipv4().orElseThrow(() -> new AssertionError(peer + " has no IPv4 address"));
    }

    RpcRdmaServer server(RdmaTestDevice device, int credits) throws Exception {
        return server(device, EchoProgram.dispatcher(), credits);
    }

    RpcRdmaServer server(RdmaTestDevice device, RpcDispatcher dispatcher, int credits) throws Exception {
        return rig.start(RpcRdmaServer.builder(dispatcher)
                .bind(rig.nextAddress(device))
                .credits(credits)
                .timeout(TIMEOUT)
                // these tests check what moves, not the transfer deadline (TransferDeadlineTest): in an emulated guest
                // on a loaded host, rxe's retransmission after a lost response ("rdma_rxe: Failed sending ACK") once
                // took an 8 MiB Read past the default 5 s + 8 s, and the server rightly closed the connection
                .transferTimeout(TIMEOUT));
    }

    RawPeer peer(RpcRdmaServer server) throws Exception {
        return rig.peer(server, TIMEOUT);
    }

    // --------------------------------------------------------------------------------------------- messages

    static byte[] rpcCall(int xid, int program, int procedure, byte[] arguments) {
        RpcCall call = RpcCall.of(xid, program, 1, procedure, OpaqueAuth.NONE, OpaqueAuth.NONE);
        byte[] b = new byte[RpcMessageCodec.size(call) + arguments.length];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(b));
        RpcMessageCodec.encode(call, out);
        out.putFixedOpaque(arguments);
        return b;
    }

    static byte[] opaque(byte[] payload) {
        byte[] b = new byte[4 + (payload.length + 3) / 4 * 4];
        new XdrEncoder(MemorySegment.ofArray(b)).putOpaque(payload, EchoProgram.MAX);
        return b;
    }

    static byte[] header(RpcRdmaHeader h) {
        return RpcRdmaCallHandlerTest.header(h);
    }

    static byte[] concat(byte[]... parts) {
        return RpcRdmaCallHandlerTest.concat(parts);
    }

    static byte[] words(int... w) {
        return RpcRdmaCallHandlerTest.words(w);
    }

    static DecodedHeader decode(byte[] message) throws Exception {
        return new RpcRdmaHeaderDecoder().decode(MemorySegment.ofArray(message));
    }

    static byte[] await(CompletableFuture<byte[]> f) throws Exception {
        return f.get(WAIT, TimeUnit.SECONDS);
    }

    /** NULL over the peer: asserts an inline SUCCESS reply with credits granted. */
    static void assertNullAnswered(RawPeer p) throws Exception {
        int xid = XIDS.incrementAndGet();
        byte[] reply = await(p.call(
                xid,
                concat(
                        header(new RdmaMsg(xid, 1, ChunkLists.NONE)),
                        rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.NULL, new byte[0]))));
        DecodedHeader d = decode(reply);
        RdmaMsg msg = assertInstanceOf(RdmaMsg.class, d.header());
        assertTrue(msg.credits() >= 1);
        XdrDecoder in = new XdrDecoder(d.rpcMessage(MemorySegment.ofArray(reply)));
        assertEquals(AcceptedReply.success(xid, OpaqueAuth.NONE), RpcMessageCodec.decode(in));
        assertTrue(in.atEnd());
    }

    enum Path {
        INLINE,
        READ_CHUNK_WRITE_LIST,
        POSITION_ZERO_REPLY_CHUNK,
        READ_CHUNK_REPLY_CHUNK
    }

    /** One echo by {@code path}; returns the payload that came back. */
    static byte[] echo(RawPeer p, Path path, byte[] payload) throws Exception {
        int xid = XIDS.incrementAndGet();
        byte[] reply;
        switch (path) {
            case INLINE -> {
                reply = await(p.call(
                        xid,
                        concat(
                                header(new RdmaMsg(xid, 4, ChunkLists.NONE)),
                                rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.ECHO, opaque(payload)))));
                DecodedHeader d = decode(reply);
                assertEquals(new RdmaMsg(xid, 4, ChunkLists.NONE), d.header());
                XdrDecoder in = results(xid, d.rpcMessage(MemorySegment.ofArray(reply)));
                return in.getOpaqueBytes(EchoProgram.MAX);
            }
            case READ_CHUNK_WRITE_LIST -> {
                byte[] reduced = rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.ECHO, words(payload.length));
                RdmaSegment data = p.register(payload);
                RdmaSegment target = p.registerEmpty(payload.length);
                reply = await(p.call(
                        xid,
                        concat(
                                header(new RdmaMsg(
                                        xid,
                                        4,
                                        new ChunkLists(
                                                List.of(new ReadSegment(reduced.length, data)),
                                                List.of(WriteChunk.of(target)),
                                                Optional.empty()))),
                                reduced)));
                DecodedHeader d = decode(reply);
                RdmaMsg msg =
                        assertInstanceOf(RdmaMsg.class, d.header(), d.header().toString());
                assertEquals(
                        List.of(WriteChunk.of(new RdmaSegment(target.handle(), payload.length, target.offset()))),
                        msg.chunks().writeList());
                XdrDecoder in = results(xid, d.rpcMessage(MemorySegment.ofArray(reply)));
                assertEquals(payload.length, in.getInt());
                assertTrue(in.atEnd(), "the data went to the Write chunk, not inline");
                return p.contents(target, payload.length);
            }
            case POSITION_ZERO_REPLY_CHUNK, READ_CHUNK_REPLY_CHUNK -> {
                byte[] message;
                if (path == Path.POSITION_ZERO_REPLY_CHUNK) {
                    RdmaSegment whole =
                            p.register(rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.ECHO_PLAIN, opaque(payload)));
                    RdmaSegment replyArea = p.registerEmpty(payload.length + 256);
                    message = header(new RdmaNoMsg(
                            xid,
                            4,
                            new ChunkLists(
                                    List.of(new ReadSegment(0, whole)),
                                    List.of(),
                                    Optional.of(WriteChunk.of(replyArea)))));
                    reply = await(p.call(xid, message));
                    return fromReplyChunk(p, xid, reply, replyArea);
                }
                byte[] reduced = rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.ECHO_PLAIN, words(payload.length));
                RdmaSegment data = p.register(payload);
                RdmaSegment replyArea = p.registerEmpty(payload.length + 256);
                message = concat(
                        header(new RdmaMsg(
                                xid,
                                4,
                                new ChunkLists(
                                        List.of(new ReadSegment(reduced.length, data)),
                                        List.of(),
                                        Optional.of(WriteChunk.of(replyArea))))),
                        reduced);
                reply = await(p.call(xid, message));
                return fromReplyChunk(p, xid, reply, replyArea);
            }
            default -> throw new AssertionError(path);
        }
    }

    /** The echoed payload of a reply that offered a Reply chunk: in it if the reply was long, else inline. */
    private static byte[] fromReplyChunk(RawPeer p, int xid, byte[] reply, RdmaSegment area) throws Exception {
        DecodedHeader d = decode(reply);
        if (d.header() instanceof RdmaMsg msg) {
            assertEquals(ChunkLists.NONE, msg.chunks(), "an inline reply returns no chunks");
            assertTrue(reply.length <= RawPeer.INLINE);
            XdrDecoder in = results(xid, d.rpcMessage(MemorySegment.ofArray(reply)));
            byte[] echoed = in.getOpaqueBytes(EchoProgram.MAX);
            assertTrue(in.atEnd());
            return echoed;
        }
        RdmaNoMsg noMsg =
                assertInstanceOf(RdmaNoMsg.class, d.header(), d.header().toString());
        int written = noMsg.chunks().replyChunk().orElseThrow().length();
        XdrDecoder in = results(xid, MemorySegment.ofArray(p.contents(area, written)));
        byte[] echoed = in.getOpaqueBytes(EchoProgram.MAX);
        assertTrue(in.atEnd());
        return echoed;
    }

    static XdrDecoder results(int xid, MemorySegment rpcReply) {
        XdrDecoder in = new XdrDecoder(rpcReply);
        assertEquals(AcceptedReply.success(xid, OpaqueAuth.NONE), RpcMessageCodec.decode(in));
        return in;
    }

    // ------------------------------------------------------------------------------------------------ tests

    @Test
    void nullAndEchoInline(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 8);
        RawPeer p = peer(s);
        assertNullAnswered(p);
        byte[] payload = EchoProgram.pattern(1000, 1);
        assertArrayEquals(payload, echo(p, Path.INLINE, payload));
        assertEquals(2, s.statistics().inlineCalls());
        assertEquals(2, s.statistics().replies(ReplyPath.INLINE));
        assertEquals(1, s.connectionCount());
    }

    @Test
    void echoOverEveryPathFromZeroToEightMiB(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 8);
        RawPeer p = peer(s);
        ServerStatistics st = s.statistics();
        int[] sizes = {0, 1, 3, 1000, 4001, 65_539, 1 << 20, 8 << 20};
        Map<Path, Integer> done = new HashMap<>();
        for (int size : sizes) {
            byte[] payload = EchoProgram.pattern(size, size);
            for (Path path : Path.values()) {
                if (path == Path.INLINE && size > 3000) {
                    continue;
                }
                long t0 = System.nanoTime();
                byte[] back = echo(p, path, payload);
                assertTrue(Arrays.equals(payload, back), path + " " + size + " bytes came back different");
                System.out.printf("echo %s %d bytes: %d ms%n", path, size, (System.nanoTime() - t0) / 1_000_000);
                done.merge(path, 1, Integer::sum);
                p.releaseRegions();
            }
        }
        assertEquals(done.get(Path.INLINE), (int) st.inlineCalls());
        assertEquals(done.get(Path.READ_CHUNK_WRITE_LIST) + done.get(Path.READ_CHUNK_REPLY_CHUNK), (int)
                st.readChunkCalls());
        assertEquals(done.get(Path.POSITION_ZERO_REPLY_CHUNK), (int) st.positionZeroCalls());
        assertEquals(done.get(Path.READ_CHUNK_WRITE_LIST), (int) st.replies(ReplyPath.WRITE_LIST));
        assertEquals(done.get(Path.INLINE), (int) st.replies(ReplyPath.INLINE) - countSmallPlainReplies(sizes));
        assertEquals(
                done.get(Path.POSITION_ZERO_REPLY_CHUNK)
                        + done.get(Path.READ_CHUNK_REPLY_CHUNK)
                        - countSmallPlainReplies(sizes),
                (int) st.replies(ReplyPath.REPLY_CHUNK));
        System.out.println("paths: " + st);
    }

    /** Plain echoes whose reply fits inline (4096 bytes) go inline even though a Reply chunk was offered. */
    private static int countSmallPlainReplies(int[] sizes) {
        int n = 0;
        for (int size : sizes) {
            if (28 + 24 + 4 + (size + 3) / 4 * 4 <= 4096) {
                n += 2; // POSITION_ZERO_REPLY_CHUNK and READ_CHUNK_REPLY_CHUNK
            }
        }
        return n;
    }

    @Test
    void thousandConcurrentCallsOverOneConnectionWithFourCredits(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 4);
        RawPeer p = peer(s);
        Semaphore credits = new Semaphore(1); // the requester starts with one credit (RFC 8166 section 3.3.1)
        AtomicInteger granted = new AtomicInteger(1);
        AtomicInteger maxGrant = new AtomicInteger();
        int calls = 1000;
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            credits.acquire();
            int xid = XIDS.incrementAndGet();
            byte[] payload = EchoProgram.pattern(64 + i % 200, i);
            CompletableFuture<byte[]> f = p.call(
                    xid,
                    concat(
                            header(new RdmaMsg(xid, 32, ChunkLists.NONE)),
                            rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.ECHO, opaque(payload))));
            all.add(f.thenAccept(reply -> {
                try {
                    DecodedHeader d = decode(reply);
                    int grant = d.header().credits();
                    maxGrant.accumulateAndGet(grant, Math::max);
                    XdrDecoder in = results(xid, d.rpcMessage(MemorySegment.ofArray(reply)));
                    assertArrayEquals(payload, in.getOpaqueBytes(EchoProgram.MAX));
                } catch (Exception e) {
                    throw new AssertionError(e);
                } finally {
                    // the grant replaces the window: release what it adds beyond the call just finished
                    int was = granted.getAndSet(4);
                    credits.release(1 + Math.max(0, 4 - was));
                }
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
        assertEquals(4, maxGrant.get(), "32 asked, 4 at most granted");
        assertEquals(calls, s.statistics().replies(ReplyPath.INLINE));
    }

    @Test
    void theSameDispatcherServesTcpAndRdmaAtOnce(RdmaTestDevice device) throws Exception {
        RpcDispatcher dispatcher = EchoProgram.dispatcher();
        RpcRdmaServer s = server(device, dispatcher, 8);
        TcpRpcServer tcp = TcpRpcServer.builder(dispatcher)
                .maxRecordSize((16 << 20) + 1024)
                .bind(new InetSocketAddress(peerAddress(device), 0))
                .start();
        rig.closeAfter(tcp);
        RawPeer p = peer(s);
        try (TcpRpcClient client = TcpRpcClient.connect(tcp.address(), (16 << 20) + 1024)) {
            for (int size : new int[] {0, 1000, 1 << 20}) {
                byte[] payload = EchoProgram.pattern(size, 9);
                byte[] viaTcp = client.<byte[]>call(
                                EchoProgram.PROGRAM,
                                EchoProgram.VERSION,
                                EchoProgram.ECHO,
                                out -> out.putOpaque(payload, EchoProgram.MAX),
                                in -> in.getOpaqueBytes(EchoProgram.MAX),
                                TIMEOUT)
                        .get(WAIT, TimeUnit.SECONDS);
                assertArrayEquals(payload, viaTcp);
                assertArrayEquals(payload, echo(p, size > 3000 ? Path.READ_CHUNK_WRITE_LIST : Path.INLINE, payload));
                p.releaseRegions();
            }
        }
    }

    // --------------------------------------------------------------------------------------------- bad input

    /** Sends {@code message}, expects an RDMA_ERROR for {@code xid}; then the same connection still works. */
    private RdmaError assertError(RawPeer p, int xid, byte[] message) throws Exception {
        byte[] reply = await(p.call(xid, message));
        RdmaError error = assertInstanceOf(RdmaError.class, decode(reply).header());
        assertEquals(xid, error.xid());
        assertTrue(error.credits() >= 1, "an error grants credit too");
        assertNullAnswered(p);
        return error;
    }

    @Test
    void badHeadersGetTheirRdmaErrorAndTheServerGoesOn(RdmaTestDevice device) throws Exception {
        // segments up to 1 GiB, so that two of them overflow a 32-bit length
        RpcRdmaServer s = rig.start(RpcRdmaServer.builder(EchoProgram.dispatcher())
                .bind(rig.nextAddress(device))
                .headerLimits(new org.panamardma.rpcrdma.HeaderLimits(64, 16, 64, 1 << 30))
                .timeout(TIMEOUT));
        RawPeer p = peer(s);
        RdmaSegment some = p.register(new byte[64]);
        byte[] rpc = rpcCall(0x77, EchoProgram.PROGRAM, EchoProgram.ECHO, words(64));
        int x = XIDS.incrementAndGet();
        assertEquals(new RdmaError.VersionMismatch(x, 1, 1, 1), assertError(p, x, words(x, 2, 1, 0, 0, 0, 0)));
        x = XIDS.incrementAndGet();
        assertInstanceOf(RdmaError.ChunkError.class, assertError(p, x, words(x, 1, 1)), "truncated");
        x = XIDS.incrementAndGet();
        assertInstanceOf(RdmaError.ChunkError.class, assertError(p, x, words(x, 1, 1, 9)), "unknown type");
        x = XIDS.incrementAndGet();
        assertInstanceOf(
                RdmaError.ChunkError.class,
                assertError(p, x, words(x, 1, 1, 0, 0, 1, 0x7fff_ffff, 0, 0)),
                "absurd segment count");
        x = XIDS.incrementAndGet();
        assertInstanceOf(
                RdmaError.ChunkError.class,
                assertError(p, x, words(x, 1, 1, 0, 0, 0, 1, 1, 7, 0x7fff_0000, 0, 0)),
                "segment length over the limit");
        x = XIDS.incrementAndGet();
        RdmaSegment gib = new RdmaSegment(some.handle(), 1 << 30, some.offset());
        assertInstanceOf(
                RdmaError.ChunkError.class,
                assertError(
                        p,
                        x,
                        concat(
                                header(new RdmaMsg(
                                        x,
                                        1,
                                        new ChunkLists(List.of(), List.of(), Optional.of(WriteChunk.of(gib, gib))))),
                                rpc)),
                "segment lengths summing past 2^31-1");
        x = XIDS.incrementAndGet();
        assertInstanceOf(
                RdmaError.ChunkError.class,
                assertError(
                        p,
                        x,
                        concat(
                                header(new RdmaMsg(
                                        x,
                                        1,
                                        new ChunkLists(
                                                List.of(new ReadSegment(40, some), new ReadSegment(36, some)),
                                                List.of(),
                                                Optional.empty()))),
                                rpc)),
                "read positions out of order");
        x = XIDS.incrementAndGet();
        assertInstanceOf(
                RdmaError.ChunkError.class,
                assertError(
                        p,
                        x,
                        concat(
                                header(new RdmaMsg(
                                        x,
                                        1,
                                        new ChunkLists(
                                                List.of(new ReadSegment(4000, some)), List.of(), Optional.empty()))),
                                rpc)),
                "read position beyond the message");
        x = XIDS.incrementAndGet();
        RdmaSegment small = p.registerEmpty(100);
        RdmaSegment argument = p.register(new byte[5000]); // a reply of over 4096 bytes: not inline
        byte[] reduced = rpcCall(x, EchoProgram.PROGRAM, EchoProgram.ECHO_PLAIN, words(5000));
        assertInstanceOf(
                RdmaError.ChunkError.class,
                assertError(
                        p,
                        x,
                        concat(
                                header(new RdmaMsg(
                                        x,
                                        1,
                                        new ChunkLists(
                                                List.of(new ReadSegment(reduced.length, argument)),
                                                List.of(),
                                                Optional.of(WriteChunk.of(small))))),
                                reduced)),
                "reply chunk too small");
        assertArrayEquals(new byte[100], p.contents(small, 100), "nothing written to it");
        // a message too short for a version is dropped: the next answer is the NULL's
        p.send(new byte[] {1, 2});
        assertNullAnswered(p);
        assertNull(p.unmatched.poll(), "nothing came back for the dropped message");
        // a second, good connection is served
        RawPeer second = peer(s);
        assertNullAnswered(second);
        assertEquals(2, s.connectionCount());
        System.out.println("errors: " + s.statistics());
    }

    @Test
    void moreCallsThanCreditsAreStillAnswered(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 2);
        RawPeer p = peer(s);
        // 5 calls at once against a grant of 2: draft section 3.3 lets the server answer them (it has receives
        // posted beyond its credits) or end the connection; this one answers, granting no more than 2
        List<CompletableFuture<byte[]>> replies = new ArrayList<>();
        List<Integer> xids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int xid = XIDS.incrementAndGet();
            xids.add(xid);
            replies.add(p.call(
                    xid,
                    concat(
                            header(new RdmaMsg(xid, 10, ChunkLists.NONE)),
                            rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.NULL, new byte[0]))));
        }
        for (int i = 0; i < 5; i++) {
            byte[] reply = await(replies.get(i));
            DecodedHeader d = decode(reply);
            assertEquals(2, d.header().credits());
            assertEquals(
                    AcceptedReply.success(xids.get(i), OpaqueAuth.NONE),
                    RpcMessageCodec.decode(new XdrDecoder(d.rpcMessage(MemorySegment.ofArray(reply)))));
        }
        assertNullAnswered(p);
    }

    @Test
    void aPeerThatLeavesMidCallLeavesNothingBehind(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 8);
        String serverDevice = device.peer().orElseThrow().name();
        Map<String, Integer> before = resources(serverDevice);
        System.out.println(serverDevice + " before: " + before);
        RawPeer p = RawPeer.connect(s.address(), TIMEOUT);
        try {
            assertNullAnswered(p);
            System.out.println(serverDevice + " connected: " + resources(serverDevice));
            int xid = XIDS.incrementAndGet();
            RdmaSegment whole = p.register(
                    rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.ECHO, opaque(EchoProgram.pattern(8 << 20, 3))));
            RdmaSegment target = p.registerEmpty(8 << 20);
            p.send(header(new RdmaNoMsg(
                    xid,
                    4,
                    new ChunkLists(
                            List.of(new ReadSegment(0, whole)), List.of(WriteChunk.of(target)), Optional.empty()))));
        } finally {
            p.close(); // while the server reads the 8 MiB call
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
        while (s.connectionCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(0, s.connectionCount(), "the server let the connection go");
        Map<String, Integer> after = resources(serverDevice);
        while (!after.equals(before) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            after = resources(serverDevice);
        }
        System.out.println(serverDevice + " after: " + after);
        assertEquals(before, after, "queue pairs, CQs, PDs, MRs and cm_ids of the server device");
        assertNullAnswered(peer(s));
    }

    /** The counts {@code rdma resource show} gives for {@code device} (pd, cq, qp, cm_id, mr, ...). */
    static Map<String, Integer> resources(String device) throws Exception {
        return RdmaResources.of(device);
    }
}
