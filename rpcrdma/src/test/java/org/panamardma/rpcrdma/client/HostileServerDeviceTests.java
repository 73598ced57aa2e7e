package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.WorkCompletionException;
import org.panamardma.xdr.XdrEncodable;

/**
 * A hostile server against {@link RpcRdmaClient} (the mirror of the server's hostile-client tests), on a real device:
 * it replays a call's handles after the call, writes after the caller closed the arena, writes beyond a segment into
 * a neighbouring pool buffer and into the caller's memory around a segment, writes a Read chunk, writes after a
 * timeout, and answers with bogus chunk lists. Each access must be refused (a remote access error at the server; on
 * iWARP, where an RDMA Write completes when sent, the connection's end) or the call must fail with a typed exception
 * at the client; and the client's memory must be untouched: every target lies between canaries, pool buffers around
 * the ones calls use hold canaries too, and all are checked after each attack.
 *
 * <p>Each case runs with every exposure the device has ({@link #exposures()}): the default, and memory windows where
 * the device has them (rxe). The first three cases are the reproductions against the defaults of the client
 * before this (a 64 MiB registration cache and pool slabs registered for read and write): each wrote into the
 * client's memory then.
 */
abstract class HostileServerDeviceTests {
    static final Duration LONG = HostileServer.WAIT;
    private static final int PROGRAM = 0x2000_7777;
    private static final int DATA = 64 << 10;
    private static final AtomicInteger PORTS = new AtomicInteger(40_000 + new Random().nextInt(9_000));
    private static final XdrEncodable NO_ARGUMENTS = out -> out.putInt(0);

    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<Guarded> guarded = new ArrayList<>();

    /** The options each case is run with on this device: the defaults, and memory windows where there are some. */
    abstract List<RpcRdmaClientOptions> exposures();

    static RpcRdmaClientOptions defaults() {
        return RpcRdmaClientOptions.DEFAULTS.withTimeouts(LONG, LONG);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** A hostile server on the device's peer and a client of it, connected. */
    private record Pair(HostileServer server, RpcRdmaClient client, Transport transport) {}

    private Pair connect(RdmaTestDevice device, RpcRdmaClientOptions options) throws Exception {
        var peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer"));
        HostileServer s =
                HostileServer.listen(new InetSocketAddress(peer.ipv4().orElseThrow(), PORTS.getAndIncrement()));
        open.add(s);
        CompletableFuture<RpcRdmaClient> c = CompletableFuture.supplyAsync(() -> {
            try {
                return RpcRdmaClient.connect(s.address(), options);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        s.accept();
        RpcRdmaClient client = c.get(LONG.toSeconds(), TimeUnit.SECONDS);
        open.add(client);
        System.out.println(device.name() + ": " + client + " exposes chunks by " + client.exposure());
        return new Pair(s, client, device.transport());
    }

    /** {@code size} bytes of the caller's between two canaries of 4 KiB, in {@code arena}. */
    private Guarded guarded(Arena arena, int size) {
        Guarded g = new Guarded(arena.allocate(size + 8192L, 4096), size);
        guarded.add(g);
        return g;
    }

    static final class Guarded {
        final MemorySegment whole;
        final byte[] canary = new byte[4096];
        final int size;

        Guarded(MemorySegment whole, int size) {
            this.whole = whole;
            this.size = size;
            new Random(whole.address()).nextBytes(canary);
            MemorySegment.copy(canary, 0, whole, ValueLayout.JAVA_BYTE, 0, 4096);
            MemorySegment.copy(canary, 0, whole, ValueLayout.JAVA_BYTE, 4096L + size, 4096);
        }

        MemorySegment body() {
            return whole.asSlice(4096, size);
        }

        void assertCanariesIntact() {
            assertArrayEquals(canary, whole.asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE), "canary before");
            assertArrayEquals(canary, whole.asSlice(4096L + size, 4096).toArray(ValueLayout.JAVA_BYTE), "canary after");
        }
    }

    /** Pool buffers of the client's, filled with a pattern: what a server must never reach. */
    private static final class PoolCanaries {
        final List<RegisteredBuffer> buffers = new ArrayList<>();
        final List<byte[]> patterns = new ArrayList<>();

        void add(RegisteredBuffer b, int seed) {
            byte[] p = new byte[(int) b.segment().byteSize()];
            new Random(seed).nextBytes(p);
            MemorySegment.copy(p, 0, b.segment(), ValueLayout.JAVA_BYTE, 0, p.length);
            buffers.add(b);
            patterns.add(p);
        }

        void assertIntact() {
            for (int i = 0; i < buffers.size(); i++) {
                assertArrayEquals(
                        patterns.get(i),
                        buffers.get(i).segment().toArray(ValueLayout.JAVA_BYTE),
                        "pool buffer " + i + " untouched");
            }
        }
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    /** A call whose reply the test's server decides. */
    private static CompletableFuture<RpcRdmaReply> call(
            RpcRdmaClient c, XdrEncodable args, ReplyExpectation e, Duration timeout) {
        return c.call(PROGRAM, 1, 1, OpaqueAuth.NONE, args, e, timeout);
    }

    private static Throwable failure(CompletableFuture<?> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(LONG.toSeconds(), TimeUnit.SECONDS));
        return e.getCause();
    }

    /**
     * The server's access is refused: on RoCE its request completes with a remote access error; on iWARP an RDMA
     * Write completes when sent, and the client's Terminate ends the connection instead. Either way the server then
     * closes, and the client's next call fails with {@link RpcRdmaException.ConnectionLost}.
     */
    private static void assertRefused(Pair p, CompletableFuture<?> access, String what) throws Exception {
        try {
            access.get(LONG.toSeconds(), TimeUnit.SECONDS);
            if (p.transport() == Transport.ROCE) {
                fail(what + ": the client's device accepted it");
            }
            long deadline = System.nanoTime() + LONG.toNanos();
            while (!p.server().connectionFailed()) {
                if (System.nanoTime() > deadline) {
                    fail(what + ": sent, and the client did not end the connection");
                }
                Thread.sleep(20);
            }
            System.out.println(what + ": sent, and the client ended the connection (iWARP Terminate)");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (p.transport() == Transport.ROCE) {
                WorkCompletionException w = assertInstanceOf(WorkCompletionException.class, cause, what);
                assertEquals(WcStatus.REM_ACCESS_ERR, w.status(), what);
            }
            System.out.println(what + ": refused: " + cause.getMessage());
        }
        p.server().close();
        Throwable t = failure(call(p.client(), NO_ARGUMENTS, ReplyExpectation.SMALL, LONG));
        assertInstanceOf(RpcRdmaException.ConnectionLost.class, t, "the client's next call: " + t);
    }

    /** Every canary of memory still allocated (earlier rounds' arenas are closed). */
    private void assertAllCanariesIntact() {
        for (Guarded g : guarded) {
            if (g.whole.scope().isAlive()) {
                g.assertCanariesIntact();
            }
        }
    }

    /** An RDMA_MSG reply: SUCCESS with {@code results}, the Write list {@code writeList} returned. */
    private static byte[] success(int xid, ChunkLists returned, int... results) {
        return HostileServer.message(
                new RdmaMsg(xid, 32, returned), AcceptedReply.success(xid, OpaqueAuth.NONE), results);
    }

    private static ChunkLists writeList(RdmaSegment... returned) {
        return new ChunkLists(
                List.of(), Arrays.stream(returned).map(WriteChunk::of).toList(), Optional.empty());
    }

    private static RdmaSegment withLength(RdmaSegment s, int length) {
        return new RdmaSegment(s.handle(), length, s.offset());
    }

    // --------------------------------------------------------------------------------------------------- cases

    /**
     * Issue 25's second reproduction: a server writes into a call's Write chunk after the reply (replaying its
     * handle), into live memory. It fails at once: the reply is handed over only once the handle is revoked.
     */
    @Test
    void aHandleReplayedAfterItsCallReachesNothing(RdmaTestDevice device) throws Exception {
        for (RpcRdmaClientOptions options : exposures()) {
            try (Arena arena = Arena.ofShared()) {
                Pair p = connect(device, options);
                Guarded g = guarded(arena, DATA);
                CompletableFuture<RpcRdmaReply> f =
                        call(p.client(), NO_ARGUMENTS, ReplyExpectation.placedInto(g.body(), DATA + 100), LONG);
                HostileServer.Call c = p.server().nextCall();
                RdmaSegment seg = c.chunks().writeList().getFirst().segments().getFirst();
                assertEquals(g.body().address(), seg.offset(), "the Write chunk is the caller's target, in place");
                assertEquals(DATA, seg.length());
                byte[] legit = pattern(4096, 1);
                p.server().write(seg.offset(), seg.handle(), legit).get(LONG.toSeconds(), TimeUnit.SECONDS);
                p.server().send(success(c.xid(), writeList(withLength(seg, legit.length)), legit.length));
                RpcRdmaReply r = f.get(LONG.toSeconds(), TimeUnit.SECONDS);
                assertEquals(legit.length, r.placements().getFirst().length());
                assertArrayEquals(legit, bytes(g.body().asSlice(0, legit.length)), "the server's write landed");
                byte[] before = bytes(g.body());

                assertRefused(
                        p,
                        p.server().write(seg.offset(), seg.handle(), pattern(64, 2)),
                        "a write with the handle of a call that has its reply");
                assertArrayEquals(before, bytes(g.body()), "the caller's memory is as the reply left it");
                assertAllCanariesIntact();
            }
        }
    }

    /**
     * Issue 25's first reproduction: a server answers RDMA_ERROR, the caller closes the arena that held the call's
     * Write chunk, and the server writes into it.
     */
    @Test
    void aWriteAfterTheCallerClosedTheArenaIsRefused(RdmaTestDevice device) throws Exception {
        for (RpcRdmaClientOptions options : exposures()) {
            try (Arena kept = Arena.ofShared()) {
                Pair p = connect(device, options);
                PoolCanaries pool = new PoolCanaries();
                for (int i = 0; i < 4; i++) {
                    pool.add(p.client().buffers().allocate(DATA), 10 + i);
                }
                Guarded other = guarded(kept, DATA);
                Arena callers = Arena.ofShared();
                MemorySegment target = callers.allocate(DATA);
                CompletableFuture<RpcRdmaReply> f =
                        call(p.client(), NO_ARGUMENTS, ReplyExpectation.placedInto(target, DATA + 100), LONG);
                HostileServer.Call c = p.server().nextCall();
                RdmaSegment seg = c.chunks().writeList().getFirst().segments().getFirst();
                p.server().send(HostileServer.message(new RdmaError.ChunkError(c.xid(), 32), null));
                Throwable t = failure(f);
                assertInstanceOf(RpcRdmaException.ChunkError.class, t, t.toString());
                callers.close(); // the call failed: the caller may free its memory at once

                assertRefused(
                        p,
                        p.server().write(seg.offset(), seg.handle(), pattern(64, 3)),
                        "a write into memory the caller freed after the call");
                pool.assertIntact();
                other.assertCanariesIntact();
                assertEquals(-1, other.body().mismatch(MemorySegment.ofArray(new byte[DATA])), "untouched");
            }
        }
    }

    /**
     * Issue 25's third reproduction: 64 KiB beyond a Reply chunk, where the pool's next buffer is (a buffer the
     * caller holds), during the call.
     */
    @Test
    void aWriteBeyondAReplyChunkIntoTheNeighbouringPoolBufferIsRefused(RdmaTestDevice device) throws Exception {
        for (RpcRdmaClientOptions options : exposures()) {
            Pair p = connect(device, options);
            RegisteredBufferPool buffers = p.client().buffers();
            long klass = 256 << 10;
            List<RegisteredBuffer> leased = new ArrayList<>();
            for (int i = 0; i < 4; i++) { // one slab of the 256 KiB class: four neighbours
                leased.add(buffers.allocate(klass));
            }
            long freed = leased.get(1).segment().address();
            leased.get(1).release(); // the pool hands out its most recently freed buffer first: the Reply chunk's
            PoolCanaries pool = new PoolCanaries();
            pool.add(leased.get(0), 20);
            pool.add(leased.get(2), 22);
            pool.add(leased.get(3), 23);
            CompletableFuture<RpcRdmaReply> f = call(p.client(), NO_ARGUMENTS, ReplyExpectation.upTo(200_000), LONG);
            HostileServer.Call c = p.server().nextCall();
            RdmaSegment reply = c.chunks().replyChunk().orElseThrow().segments().getFirst();
            assertEquals(freed, reply.offset(), "the Reply chunk is in the buffer between the caller's two");
            long beyond = reply.offset() + reply.length() + (64 << 10);
            assertTrue(beyond >= freed + klass, "64 KiB beyond the Reply chunk is the next buffer");

            assertRefused(
                    p,
                    p.server().write(beyond, reply.handle(), pattern(64, 4)),
                    "a write 64 KiB beyond a Reply chunk, into the next pool buffer");
            Throwable t = failure(f);
            assertInstanceOf(RpcRdmaException.ConnectionLost.class, t, t.toString());
            pool.assertIntact();
        }
    }

    /** A write one byte past a caller's Write chunk, and one byte before it: the canaries around it. */
    @Test
    void writesJustOutsideACallersSegmentAreRefused(RdmaTestDevice device) throws Exception {
        for (RpcRdmaClientOptions options : exposures()) {
            for (boolean after : new boolean[] {true, false}) {
                try (Arena arena = Arena.ofShared()) {
                    Pair p = connect(device, options);
                    Guarded g = guarded(arena, DATA);
                    CompletableFuture<RpcRdmaReply> f =
                            call(p.client(), NO_ARGUMENTS, ReplyExpectation.placedInto(g.body(), DATA + 100), LONG);
                    RdmaSegment seg = p.server()
                            .nextCall()
                            .chunks()
                            .writeList()
                            .getFirst()
                            .segments()
                            .getFirst();
                    long at = after ? seg.offset() + seg.length() : seg.offset() - 1;
                    assertRefused(
                            p,
                            p.server().write(at, seg.handle(), pattern(1, 5)),
                            "a write one byte " + (after ? "past" : "before") + " the segment");
                    failure(f);
                    g.assertCanariesIntact();
                    assertEquals(-1, g.body().mismatch(MemorySegment.ofArray(new byte[DATA])), "untouched");
                }
            }
        }
    }

    /** A Read chunk gives RDMA Read only: a write into the caller's data is refused. */
    @Test
    void aReadChunkCannotBeWritten(RdmaTestDevice device) throws Exception {
        for (RpcRdmaClientOptions options : exposures()) {
            try (Arena arena = Arena.ofShared()) {
                Pair p = connect(device, options);
                Guarded g = guarded(arena, DATA);
                byte[] data = pattern(DATA, 6);
                MemorySegment.copy(data, 0, g.body(), ValueLayout.JAVA_BYTE, 0, DATA);
                CompletableFuture<RpcRdmaReply> f =
                        call(p.client(), out -> out.putEligibleOpaque(g.body(), DATA), ReplyExpectation.SMALL, LONG);
                ReadSegment read = p.server().nextCall().chunks().readList().getFirst();
                RdmaSegment seg = read.target();
                byte[] got = p.server()
                        .read(seg.offset(), seg.handle(), seg.length())
                        .get(LONG.toSeconds(), TimeUnit.SECONDS);
                assertArrayEquals(data, got, "the server reads the Read chunk");
                assertRefused(
                        p, p.server().write(seg.offset(), seg.handle(), pattern(64, 7)), "a write into a Read chunk");
                failure(f);
                assertArrayEquals(data, bytes(g.body()), "the caller's data unchanged");
                g.assertCanariesIntact();
            }
        }
    }

    /** After a call timed out, its handles reach nothing: the Timeout comes only once they are revoked. */
    @Test
    void aWriteAfterTheCallTimedOutIsRefused(RdmaTestDevice device) throws Exception {
        for (RpcRdmaClientOptions options : exposures()) {
            try (Arena arena = Arena.ofShared()) {
                Pair p = connect(device, options);
                Guarded g = guarded(arena, DATA);
                CompletableFuture<RpcRdmaReply> f = call(
                        p.client(),
                        NO_ARGUMENTS,
                        ReplyExpectation.placedInto(g.body(), DATA + 100),
                        Duration.ofSeconds(3));
                RdmaSegment seg = p.server()
                        .nextCall()
                        .chunks()
                        .writeList()
                        .getFirst()
                        .segments()
                        .getFirst();
                Throwable t = failure(f);
                assertInstanceOf(RpcRdmaException.Timeout.class, t, t.toString());
                assertRefused(
                        p,
                        p.server().write(seg.offset(), seg.handle(), pattern(64, 8)),
                        "a write after the call timed out");
                assertEquals(-1, g.body().mismatch(MemorySegment.ofArray(new byte[DATA])), "untouched");
                g.assertCanariesIntact();
            }
        }
    }

    /**
     * Replies whose chunk lists do not match the call: each call fails with {@link RpcRdmaException.BadReply}, the
     * client goes on, and no call's handle reaches anything afterwards.
     */
    @Test
    void bogusChunkListsFailTheirCallsWithATypedExceptionAndRevokeTheirHandles(RdmaTestDevice device) throws Exception {
        for (RpcRdmaClientOptions options : exposures()) {
            try (Arena arena = Arena.ofShared()) {
                Pair p = connect(device, options);
                Guarded g = guarded(arena, DATA);
                record Bogus(String what, ReplyExpectation expectation, BogusReply reply) {}
                List<Bogus> cases = List.of(
                        new Bogus(
                                "two Write chunks returned for one",
                                ReplyExpectation.placedInto(g.body(), DATA + 100),
                                (c, w) -> success(c.xid(), writeList(withLength(w, 8), withLength(w, 8)), 8)),
                        new Bogus(
                                "a Write chunk longer than offered",
                                ReplyExpectation.placedInto(g.body(), DATA + 100),
                                (c, w) -> success(c.xid(), writeList(withLength(w, DATA + 4096)), 8)),
                        new Bogus(
                                "a Write chunk under another handle",
                                ReplyExpectation.placedInto(g.body(), DATA + 100),
                                (c, w) -> success(
                                        c.xid(), writeList(new RdmaSegment(w.handle() ^ 0x100, 8, w.offset())), 8)),
                        new Bogus(
                                "a Write chunk at another address",
                                ReplyExpectation.placedInto(g.body(), DATA + 100),
                                (c, w) -> success(
                                        c.xid(), writeList(new RdmaSegment(w.handle(), 8, w.offset() - 4096)), 8)),
                        new Bogus(
                                "RDMA_NOMSG without a Reply chunk offered",
                                ReplyExpectation.placedInto(g.body(), DATA + 100),
                                (c, w) -> HostileServer.message(
                                        new RdmaNoMsg(
                                                c.xid(),
                                                32,
                                                new ChunkLists(
                                                        List.of(),
                                                        List.of(),
                                                        Optional.of(WriteChunk.of(withLength(w, 64))))),
                                        null)),
                        new Bogus(
                                "a Reply chunk longer than offered",
                                ReplyExpectation.upTo(200_000),
                                (c, w) -> HostileServer.message(
                                        new RdmaNoMsg(
                                                c.xid(),
                                                32,
                                                new ChunkLists(
                                                        List.of(),
                                                        List.of(),
                                                        Optional.of(WriteChunk.of(withLength(w, w.length() + 4096))))),
                                        null)),
                        new Bogus(
                                "a Read list in a reply",
                                ReplyExpectation.placedInto(g.body(), DATA + 100),
                                (c, w) -> HostileServer.message(
                                        new RdmaMsg(
                                                c.xid(),
                                                32,
                                                new ChunkLists(
                                                        List.of(new ReadSegment(0, w)), List.of(), Optional.empty())),
                                        AcceptedReply.success(c.xid(), OpaqueAuth.NONE))),
                        new Bogus(
                                "a call where the reply belongs",
                                ReplyExpectation.placedInto(g.body(), DATA + 100),
                                (c, w) -> HostileServer.message(
                                        new RdmaMsg(c.xid(), 32, ChunkLists.NONE),
                                        RpcCall.of(c.xid(), PROGRAM, 1, 1, OpaqueAuth.NONE, OpaqueAuth.NONE))));
                List<RdmaSegment> handed = new ArrayList<>();
                for (Bogus b : cases) {
                    CompletableFuture<RpcRdmaReply> f = call(p.client(), NO_ARGUMENTS, b.expectation(), LONG);
                    HostileServer.Call c = p.server().nextCall();
                    RdmaSegment w = c.chunks().writeList().isEmpty()
                            ? c.chunks().replyChunk().orElseThrow().segments().getFirst()
                            : c.chunks().writeList().getFirst().segments().getFirst();
                    handed.add(w);
                    p.server().send(b.reply().build(c, w));
                    Throwable t = failure(f);
                    assertInstanceOf(RpcRdmaException.BadReply.class, t, b.what() + ": " + t);
                    System.out.println(b.what() + ": " + t.getMessage());
                }
                // the client works on; and no handle it gave reaches anything
                CompletableFuture<RpcRdmaReply> ok = call(p.client(), NO_ARGUMENTS, ReplyExpectation.SMALL, LONG);
                HostileServer.Call c = p.server().nextCall();
                p.server().send(success(c.xid(), ChunkLists.NONE, 42));
                assertEquals(
                        42,
                        ok.get(LONG.toSeconds(), TimeUnit.SECONDS)
                                .resultsDecoder()
                                .getInt());
                RdmaSegment first = handed.getFirst();
                assertRefused(
                        p,
                        p.server().write(first.offset(), first.handle(), pattern(64, 9)),
                        "a write with the handle of a call that failed on a bogus reply");
                assertEquals(-1, g.body().mismatch(MemorySegment.ofArray(new byte[DATA])), "untouched");
                g.assertCanariesIntact();
            }
        }
    }

    @FunctionalInterface
    private interface BogusReply {
        byte[] build(HostileServer.Call call, RdmaSegment offered);
    }
}
