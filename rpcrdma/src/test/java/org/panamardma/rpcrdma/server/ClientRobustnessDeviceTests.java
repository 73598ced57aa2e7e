package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.rpcrdma.client.CallPlan;
import org.panamardma.rpcrdma.client.ReplyExpectation;
import org.panamardma.rpcrdma.client.RpcRdmaClient;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;
import org.panamardma.rpcrdma.client.RpcRdmaException;
import org.panamardma.rpcrdma.client.RpcRdmaReply;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.xdr.XdrEncodable;

/**
 * How {@link RpcRdmaClient} fails, on a real device against {@link RpcRdmaServer}: a call that times out, a close
 * with calls pending, a server that goes away mid-call. Each test counts the client device's resources
 * ({@code rdma resource show}: pd, cq, qp, cm_id, mr) before the client connects and after it is closed, and the
 * chunk registrations (mr) while calls are pending and after they end.
 *
 * <p>The server runs {@link EchoProgram} and a SLOW program whose procedures wait on a gate the test opens: the
 * call's arguments have been read by then (Read chunks are pulled before a procedure runs), so what is still
 * registered on the client is the memory the reply would use.
 */
abstract class ClientRobustnessDeviceTests {
    static final Duration LONG = Duration.ofSeconds(120);
    static final int SLOW_PROGRAM = 0x2000_5152;
    /** opaque in, its length out (a reply that is always inline). */
    static final int SLOW_LENGTH = 1;
    /** opaque in, the same opaque out as a DDP-eligible item (a Write chunk carries it when one is offered). */
    static final int SLOW_ECHO = 2;

    private static final AtomicInteger PORTS = new AtomicInteger(30_000 + new Random().nextInt(9_000));

    private final List<AutoCloseable> open = new ArrayList<>();
    private final Gate gate = new Gate();

    /** Procedures of the SLOW program enter it and wait until the test opens it. */
    static final class Gate {
        final Semaphore entered = new Semaphore(0);
        final CountDownLatch opened = new CountDownLatch(1);

        void pass() throws InterruptedException {
            entered.release();
            if (!opened.await(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("gate never opened");
            }
        }

        void awaitEntered(int calls) throws InterruptedException {
            assertTrue(
                    entered.tryAcquire(calls, LONG.toSeconds(), TimeUnit.SECONDS),
                    calls + " calls reached the server procedure");
        }

        void open() {
            opened.countDown();
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        gate.open(); // first: a server closing waits for its procedures
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    RpcDispatcher dispatcher() {
        return EchoProgram.register(RpcDispatcher.builder())
                .register(
                        SLOW_PROGRAM,
                        1,
                        SLOW_LENGTH,
                        in -> in.getOpaque(EchoProgram.MAX),
                        (MemorySegment data, org.panamardma.oncrpc.RpcCall call) -> {
                            gate.pass();
                            return out -> out.putInt((int) data.byteSize());
                        })
                .register(
                        SLOW_PROGRAM,
                        1,
                        SLOW_ECHO,
                        in -> in.getOpaque(EchoProgram.MAX),
                        (MemorySegment data, org.panamardma.oncrpc.RpcCall call) -> {
                            gate.pass();
                            return (XdrEncodable) out -> out.putEligibleOpaque(data, EchoProgram.MAX);
                        })
                .build();
    }

    RpcRdmaServer server(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = RpcRdmaServer.builder(dispatcher())
                .bind(new InetSocketAddress(RpcRdmaServerDeviceTests.peerAddress(device), PORTS.getAndIncrement()))
                .credits(8)
                .timeout(LONG)
                .start();
        open.add(s);
        return s;
    }

    RpcRdmaClient client(RpcRdmaServer s) throws Exception {
        RpcRdmaClient c = RpcRdmaClient.connect(s.address(), RpcRdmaClientOptions.DEFAULTS.withTimeouts(LONG, LONG));
        open.add(c);
        return c;
    }

    static MemorySegment payload(Arena arena, int size, int seed) {
        MemorySegment m = arena.allocate(size);
        m.copyFrom(MemorySegment.ofArray(EchoProgram.pattern(size, seed)));
        return m;
    }

    static CompletableFuture<RpcRdmaReply> slow(
            RpcRdmaClient c, int procedure, MemorySegment args, ReplyExpectation expectation, Duration timeout) {
        return c.call(
                SLOW_PROGRAM,
                1,
                procedure,
                OpaqueAuth.NONE,
                out -> out.putEligibleOpaque(args, EchoProgram.MAX),
                expectation,
                timeout);
    }

    /** A small echo that must work: the bytes come back. */
    static void assertEchoWorks(RpcRdmaClient c, int seed) throws Exception {
        byte[] bytes = EchoProgram.pattern(300, seed);
        RpcRdmaReply r = c.call(
                        EchoProgram.PROGRAM,
                        EchoProgram.VERSION,
                        EchoProgram.ECHO_PLAIN,
                        OpaqueAuth.NONE,
                        out -> out.putOpaque(bytes, EchoProgram.MAX),
                        ReplyExpectation.SMALL)
                .get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertArrayEquals(bytes, r.resultsDecoder().getOpaqueBytes(EchoProgram.MAX));
    }

    /** The exception a failed future holds. */
    static Throwable failure(CompletableFuture<?> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(LONG.toSeconds(), TimeUnit.SECONDS));
        return e.getCause();
    }

    /**
     * The device's counts without {@code ctx}: librdmacm opens a device's verbs context the first time the process
     * uses the device and keeps it until the process exits (shared by every id), so the first test of a run sees
     * it appear; it is not a per-connection resource.
     */
    static Map<String, Integer> resources(RdmaTestDevice device) throws Exception {
        Map<String, Integer> counts = new java.util.TreeMap<>(RpcRdmaServerDeviceTests.resources(device.name()));
        counts.remove("ctx");
        return counts;
    }

    /** Waits (the kernel's counts can lag a release by a moment) until the device's counts equal {@code expected}. */
    static void assertResources(Map<String, Integer> expected, RdmaTestDevice device, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Map<String, Integer> now = resources(device);
        while (!now.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            now = resources(device);
        }
        System.out.println(device.name() + " " + what + ": " + now);
        assertEquals(expected, now, what);
    }

    static int mrs(RdmaTestDevice device) throws Exception {
        return resources(device).getOrDefault("mr", 0);
    }

    /**
     * A call whose procedure does not answer within the call's timeout fails with {@link RpcRdmaException.Timeout};
     * its Read chunk registration is gone at once, the client keeps working, and the reply the server sends late
     * (inline: the call offered no chunk for it) is dropped.
     */
    @Test
    void aTimedOutCallFreesItsChunksAndItsLateInlineReplyIsDropped(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device);
        Map<String, Integer> before = resources(device);
        RpcRdmaClient c = client(s);
        assertEchoWorks(c, 1);
        Map<String, Integer> connected = resources(device);
        System.out.println(device.name() + " before: " + before + ", connected: " + connected);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment args = payload(arena, 256 << 10, 2);
            CompletableFuture<RpcRdmaReply> f =
                    slow(c, SLOW_LENGTH, args, ReplyExpectation.SMALL, Duration.ofSeconds(20));
            gate.awaitEntered(1);
            assertEquals(connected.get("mr") + 1, mrs(device), "the Read chunk of the pending call is registered");
            Throwable t = failure(f);
            System.out.println("timed out: " + t);
            assertInstanceOf(RpcRdmaException.Timeout.class, t);
            assertTrue(t.getMessage().contains("no reply to call"), t.getMessage());
            assertEquals(connected.get("mr"), mrs(device), "the Read chunk deregistered at the timeout");
            assertEquals(1, c.outstandingAndQueued()[0], "the server still holds the call: its credit stays used");
            assertEchoWorks(c, 3); // while the server still holds the timed-out call

            long inlineReplies = s.statistics().replies(ReplyPath.INLINE);
            gate.open();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LONG.toSeconds());
            while (s.statistics().replies(ReplyPath.INLINE) == inlineReplies && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(inlineReplies + 1, s.statistics().replies(ReplyPath.INLINE), "the server answered late");
            assertEchoWorks(c, 4);
            // the server counts a reply when it encodes it, before its Send is posted: the next call's reply may
            // overtake the late one, so the drop is awaited, not assumed to have happened already
            while (c.droppedReplies() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1, c.droppedReplies(), "the late reply was dropped");
            assertEquals(0, c.outstandingAndQueued()[0], "the late reply returned the credit");
        }
        assertResources(connected, device, "after the late reply");
        c.close();
        assertResources(before, device, "after close");
    }

    /**
     * A call offering a Write chunk times out; its registration is gone, so when the server writes the late reply
     * into it the RDMA Write fails on the rkey (remote access error), the connection ends, and the caller's memory
     * is untouched. What a user sees: later calls fail with {@link RpcRdmaException.ConnectionLost}.
     */
    @Test
    void aLateRdmaWriteIntoATimedOutCallsMemoryEndsTheConnectionAndTouchesNothing(RdmaTestDevice device)
            throws Exception {
        RpcRdmaServer s = server(device);
        Map<String, Integer> before = resources(device);
        RpcRdmaClient c = client(s);
        assertEchoWorks(c, 1);
        Map<String, Integer> connected = resources(device);
        try (Arena arena = Arena.ofShared()) {
            int size = 256 << 10;
            MemorySegment args = payload(arena, size, 5);
            MemorySegment target = arena.allocate(size);
            CompletableFuture<RpcRdmaReply> f =
                    slow(c, SLOW_ECHO, args, ReplyExpectation.placedInto(target, size + 8), Duration.ofSeconds(20));
            gate.awaitEntered(1);
            assertEquals(connected.get("mr") + 2, mrs(device), "Read chunk and Write chunk registered");
            Throwable t = failure(f);
            assertInstanceOf(RpcRdmaException.Timeout.class, t);
            assertEquals(connected.get("mr"), mrs(device), "both deregistered at the timeout");
            assertEchoWorks(c, 6);

            gate.open(); // the server now RDMA-Writes into the deregistered Write chunk
            Throwable lost = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LONG.toSeconds());
            while (lost == null && System.nanoTime() < deadline) {
                CompletableFuture<RpcRdmaReply> probe = c.call(
                        EchoProgram.PROGRAM,
                        EchoProgram.VERSION,
                        EchoProgram.NULL,
                        OpaqueAuth.NONE,
                        out -> {},
                        ReplyExpectation.SMALL,
                        LONG);
                try {
                    probe.get(LONG.toSeconds(), TimeUnit.SECONDS);
                    Thread.sleep(100);
                } catch (ExecutionException e) {
                    lost = e.getCause();
                }
            }
            System.out.println("after the late RDMA Write: " + lost);
            assertInstanceOf(RpcRdmaException.ConnectionLost.class, lost, "the connection ended");
            assertEquals(-1L, target.mismatch(arena.allocate(size)), "nothing was written into the caller's target");
            assertInstanceOf(
                    RpcRdmaException.ConnectionLost.class,
                    failure(c.call(
                            EchoProgram.PROGRAM,
                            EchoProgram.VERSION,
                            EchoProgram.NULL,
                            OpaqueAuth.NONE,
                            out -> {},
                            ReplyExpectation.SMALL)),
                    "later calls fail at once");
        }
        c.close();
        assertResources(before, device, "after close");
        assertEchoWorks(client(s), 7); // the server serves new connections
    }

    /** close() with calls pending fails them all with ConnectionLost ("client closed") before it returns. */
    @Test
    void closeFailsEveryPendingCallPromptly(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device);
        Map<String, Integer> before = resources(device);
        RpcRdmaClient c = client(s);
        assertEchoWorks(c, 1);
        Map<String, Integer> connected = resources(device);
        try (Arena arena = Arena.ofShared()) {
            List<CompletableFuture<RpcRdmaReply>> calls = new ArrayList<>();
            int size = 128 << 10;
            for (int i = 0; i < 3; i++) {
                calls.add(slow(
                        c,
                        SLOW_ECHO,
                        payload(arena, size, i),
                        ReplyExpectation.placedInto(arena.allocate(size), size + 8),
                        LONG));
            }
            gate.awaitEntered(3);
            assertEquals(connected.get("mr") + 6, mrs(device), "3 calls, each a Read and a Write chunk");
            long t0 = System.nanoTime();
            c.close();
            long closeMillis = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("close with 3 calls pending took " + closeMillis + " ms");
            for (CompletableFuture<RpcRdmaReply> f : calls) {
                assertTrue(f.isCompletedExceptionally(), "failed by the time close() returned");
                Throwable t = failure(f);
                assertInstanceOf(RpcRdmaException.ConnectionLost.class, t);
                assertTrue(t.getMessage().contains("client closed"), t.getMessage());
            }
            Throwable after = failure(c.call(
                    EchoProgram.PROGRAM,
                    EchoProgram.VERSION,
                    EchoProgram.NULL,
                    OpaqueAuth.NONE,
                    out -> {},
                    ReplyExpectation.SMALL));
            assertInstanceOf(RpcRdmaException.ConnectionLost.class, after);
            assertTrue(after.getMessage().contains("client closed"), after.getMessage());
        }
        assertResources(before, device, "after close");
    }

    /**
     * The server goes away while a large call waits in its procedure: the call fails with ConnectionLost (its
     * timeout is far off), its chunks are deregistered at once; the connection's own resources go with close().
     */
    @Test
    void aServerThatVanishesMidCallFailsThePendingCallsWithConnectionLost(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device);
        Map<String, Integer> before = resources(device);
        RpcRdmaClient c = client(s);
        assertEchoWorks(c, 1);
        Map<String, Integer> connected = resources(device);
        try (Arena arena = Arena.ofShared()) {
            int size = 4 << 20;
            CompletableFuture<RpcRdmaReply> f = slow(
                    c,
                    SLOW_ECHO,
                    payload(arena, size, 9),
                    ReplyExpectation.placedInto(arena.allocate(size), size + 8),
                    Duration.ofMinutes(30));
            gate.awaitEntered(1);
            long t0 = System.nanoTime();
            Thread closer = Thread.ofPlatform().start(s::close);
            Throwable t = failure(f);
            System.out.println("server gone: the call failed " + (System.nanoTime() - t0) / 1_000_000
                    + " ms after the server's close began: " + t);
            assertInstanceOf(RpcRdmaException.ConnectionLost.class, t);
            assertTrue(t.getMessage().contains("connection lost"), t.getMessage());
            assertEquals(connected.get("mr"), mrs(device), "the call's chunks deregistered on the loss");
            Throwable later = failure(c.call(
                    EchoProgram.PROGRAM,
                    EchoProgram.VERSION,
                    EchoProgram.NULL,
                    OpaqueAuth.NONE,
                    out -> {},
                    ReplyExpectation.SMALL));
            assertInstanceOf(RpcRdmaException.ConnectionLost.class, later, "later calls fail at once");
            gate.open();
            closer.join(TimeUnit.SECONDS.toMillis(LONG.toSeconds()));
            System.out.println("server close returned after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        }
        long t1 = System.nanoTime();
        c.close();
        System.out.println("client close took " + (System.nanoTime() - t1) / 1_000_000 + " ms");
        assertResources(before, device, "after close");
        System.out.println("resources back " + (System.nanoTime() - t1) / 1_000_000 + " ms after the client close");
    }

    /** The server closes while it is still pulling an 8 MiB Read chunk (or about to): ConnectionLost, no leak. */
    @Test
    void aServerClosedDuringALargeTransferFailsTheCallWithConnectionLost(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device);
        Map<String, Integer> before = resources(device);
        RpcRdmaClient c = client(s);
        assertEchoWorks(c, 1);
        try (Arena arena = Arena.ofShared()) {
            int size = 8 << 20;
            MemorySegment args = payload(arena, size, 11);
            MemorySegment target = arena.allocate(size);
            CompletableFuture<RpcRdmaReply> f = c.call(
                    EchoProgram.PROGRAM,
                    EchoProgram.VERSION,
                    EchoProgram.ECHO,
                    OpaqueAuth.NONE,
                    out -> out.putEligibleOpaque(args, EchoProgram.MAX),
                    ReplyExpectation.placedInto(target, size + 8),
                    Duration.ofMinutes(30));
            Thread.sleep(20);
            s.close();
            try {
                RpcRdmaReply r = f.get(LONG.toSeconds(), TimeUnit.SECONDS);
                // the server finished before it was closed: then the echo must be whole
                System.out.println("the echo completed before the server closed: " + r.callKind());
                assertEquals(CallPlan.Kind.READ_CHUNKS, r.callKind());
                assertArrayEquals(
                        args.toArray(ValueLayout.JAVA_BYTE), r.placed(0).toArray(ValueLayout.JAVA_BYTE));
            } catch (ExecutionException e) {
                System.out.println("server closed mid-call: " + e.getCause());
                assertInstanceOf(RpcRdmaException.ConnectionLost.class, e.getCause());
            }
        }
        c.close();
        assertResources(before, device, "after close");
    }
}
