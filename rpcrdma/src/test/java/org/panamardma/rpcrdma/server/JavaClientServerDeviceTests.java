package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.rpcrdma.ConfigRdma;
import org.panamardma.rpcrdma.RdmaProcedure;
import org.panamardma.rpcrdma.client.CallPlan;
import org.panamardma.rpcrdma.client.ChunkExposure;
import org.panamardma.rpcrdma.client.ConfigRdmaCall;
import org.panamardma.rpcrdma.client.RegisteredBuffer;
import org.panamardma.rpcrdma.client.ReplyExpectation;
import org.panamardma.rpcrdma.client.RpcRdmaClient;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;
import org.panamardma.rpcrdma.client.RpcRdmaReply;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * The Java client ({@link RpcRdmaClient}) against the Java server ({@link RpcRdmaServer}) on a real device: the
 * client plans each call's path from the sizes, the test asserts the path both ends saw and the bytes.
 */
abstract class JavaClientServerDeviceTests {
    static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final AtomicInteger PORTS = ServerRig.ports(50_000, 10_000);

    @RegisterExtension
    final ServerRig rig = new ServerRig(PORTS);

    RpcRdmaServer server(RdmaTestDevice device, int credits) throws Exception {
        return rig.start(RpcRdmaServer.builder(EchoProgram.dispatcher())
                .bind(rig.nextAddress(device))
                .credits(credits)
                .timeout(TIMEOUT));
    }

    RpcRdmaClient client(RpcRdmaServer s) throws Exception {
        RpcRdmaClient c =
                RpcRdmaClient.connect(s.address(), RpcRdmaClientOptions.DEFAULTS.withTimeouts(TIMEOUT, TIMEOUT));
        rig.closeAfter(c);
        return c;
    }

    static RpcRdmaReply await(CompletableFuture<RpcRdmaReply> f) throws Exception {
        return f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** ECHO with a DDP-eligible argument and a placement target for the eligible result. */
    static RpcRdmaReply echoEligible(RpcRdmaClient c, MemorySegment payload, MemorySegment target) throws Exception {
        return await(c.call(
                EchoProgram.PROGRAM,
                EchoProgram.VERSION,
                EchoProgram.ECHO,
                OpaqueAuth.NONE,
                out -> out.putEligibleOpaque(payload, EchoProgram.MAX),
                ReplyExpectation.placedInto(target, payload.byteSize() + 8)));
    }

    /** ECHO_PLAIN: nothing eligible, so a long call goes by position zero and a long reply by Reply chunk. */
    static RpcRdmaReply echoPlain(RpcRdmaClient c, byte[] payload) throws Exception {
        return await(c.call(
                EchoProgram.PROGRAM,
                EchoProgram.VERSION,
                EchoProgram.ECHO_PLAIN,
                OpaqueAuth.NONE,
                out -> out.putOpaque(payload, EchoProgram.MAX),
                ReplyExpectation.upTo(payload.length + 8L)));
    }

    @Test
    void nullAndSmallEchoInline(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 16);
        RpcRdmaClient c = client(s);
        RpcRdmaReply r = await(c.call(
                EchoProgram.PROGRAM,
                EchoProgram.VERSION,
                EchoProgram.NULL,
                OpaqueAuth.NONE,
                out -> {},
                ReplyExpectation.SMALL));
        assertTrue(r.isSuccess());
        assertEquals(0, r.results().byteSize());
        byte[] payload = EchoProgram.pattern(500, 1);
        r = echoPlain(c, payload);
        assertEquals(CallPlan.Kind.INLINE, r.callKind());
        assertEquals(RdmaProcedure.RDMA_MSG, r.replyProcedure());
        assertArrayEquals(payload, r.resultsDecoder().getOpaqueBytes(EchoProgram.MAX));
        assertEquals(2, s.statistics().inlineCalls());
        assertEquals(16, c.negotiated().creditGrant(), "the server's grant");
    }

    /**
     * Issue 15, and issue 25: with memory windows (rxe), after one call of each kind, calls make no ibv_reg_mr and no
     * ibv_dereg_mr on a real device - data and targets in buffers of the client's pool (a region per buffer), in
     * caller memory of a live arena (the registration cache, a region per segment), in slices of one caller buffer at
     * alternating offsets (a region per slice, both made in the two warm-up rounds), on the heap (pool copies), a
     * Long Call and a Reply chunk (pool buffers) - and every byte comes back; a window is bound per chunk per call.
     * Where the default registers per call (siw, and rxe, whose windows are unsound), each chunk costs exactly one
     * registration and one deregistration, and none is left.
     */
    @Test
    void steadyStateCallsMakeNoRegistrationWithWindowsAndOnePerChunkWithout(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 16);
        RpcRdmaClientOptions options = RpcRdmaClientOptions.DEFAULTS.withTimeouts(TIMEOUT, TIMEOUT);
        boolean windows = device.transport() == org.panamardma.testbed.Transport.ROCE;
        RpcRdmaClient c = RpcRdmaClient.connect(
                s.address(), windows ? options.withExposure(ChunkExposure.MEMORY_WINDOWS) : options);
        rig.closeAfter(c);
        assertEquals(windows ? ChunkExposure.MEMORY_WINDOWS : ChunkExposure.PER_CALL_REGISTRATION, c.exposure());
        int size = 64 << 10;
        byte[] bytes = EchoProgram.pattern(size, 3);
        try (Arena arena = Arena.ofShared();
                RegisteredBuffer pooledPayload = c.buffers().allocate(size);
                RegisteredBuffer pooledTarget = c.buffers().allocate(size)) {
            pooledPayload.segment().copyFrom(MemorySegment.ofArray(bytes));
            MemorySegment nativePayload = arena.allocate(size);
            nativePayload.copyFrom(MemorySegment.ofArray(bytes));
            MemorySegment nativeTarget = arena.allocate(size);
            MemorySegment heapTarget = MemorySegment.ofArray(new byte[size]);
            MemorySegment sliced = arena.allocate(size + 8);
            MemorySegment slicedTargets = arena.allocate(size + 8);
            long registrations = 0;
            long binds = 0;
            for (int round = 0; round < 22; round++) {
                if (round == 2) { // after the warm-up rounds
                    registrations = c.registrations();
                    binds = c.windowBinds();
                    assertTrue(registrations > 0, "the warm-up registered pool buffers and the caller's memory");
                }
                MemorySegment slice = sliced.asSlice(8 * (round % 2), size).copyFrom(MemorySegment.ofArray(bytes));
                MemorySegment sliceTarget = slicedTargets.asSlice(8 * ((round + 1) % 2), size);
                for (MemorySegment[] pt : new MemorySegment[][] {
                    {pooledPayload.segment(), pooledTarget.segment()},
                    {nativePayload, nativeTarget},
                    {slice, sliceTarget},
                    {MemorySegment.ofArray(bytes), heapTarget}
                }) {
                    pt[1].fill((byte) 0);
                    RpcRdmaReply r = echoEligible(c, pt[0], pt[1]);
                    assertEquals(CallPlan.Kind.READ_CHUNKS, r.callKind());
                    assertTrue(r.usedWriteList());
                    assertArrayEquals(bytes, pt[1].toArray(ValueLayout.JAVA_BYTE), "round " + round);
                }
                RpcRdmaReply r = echoPlain(c, EchoProgram.pattern(100_000, round));
                assertEquals(CallPlan.Kind.POSITION_ZERO, r.callKind());
                assertEquals(RdmaProcedure.RDMA_NOMSG, r.replyProcedure());
                assertArrayEquals(
                        EchoProgram.pattern(100_000, round), r.resultsDecoder().getOpaqueBytes(EchoProgram.MAX));
            }
            System.out.println(device.name() + ": " + c.exposure() + ", " + c.registrations()
                    + " registrations for 110 calls, " + c.deregistrations() + " deregistrations, "
                    + c.windowBinds() + " window binds");
            if (windows) {
                assertEquals(registrations, c.registrations(), "20 rounds after the warm-up registered nothing");
                assertEquals(0, c.deregistrations(), "and deregistered nothing");
                assertEquals(
                        20 * 10,
                        c.windowBinds() - binds,
                        "a window per chunk per call: 4 echoes of a Read and a "
                                + "Write chunk, a Long Call's Read chunk and its Reply chunk");
            } else {
                assertEquals(registrations + 20 * 10, c.registrations(), "a registration per chunk per call");
                assertEquals(c.registrations(), c.deregistrations(), "each gone before its call completed");
            }
            assertEquals(2, c.buffers().leased(), "only the test's own two leases are out");
        }
    }

    /** A client in the latency mode (RpcRdmaClientOptions.busyPoll): every reply comes back, whole, in order. */
    @Test
    void aBusyPollingClientGetsEveryReply(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 16);
        RpcRdmaClient c = RpcRdmaClient.connect(
                s.address(),
                RpcRdmaClientOptions.DEFAULTS
                        .withTimeouts(TIMEOUT, TIMEOUT)
                        .withBusyPoll(java.time.Duration.ofMillis(200)));
        rig.closeAfter(c);
        for (int i = 0; i < 50; i++) {
            byte[] payload = EchoProgram.pattern(100 + 37 * i, i);
            assertArrayEquals(
                    payload, echoPlain(c, payload).resultsDecoder().getOpaqueBytes(EchoProgram.MAX), "echo " + i);
        }
    }

    @Test
    void echoFromZeroToEightMiBOverEveryPath(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 16);
        RpcRdmaClient c = client(s);
        ServerStatistics st = s.statistics();
        try (Arena arena = Arena.ofConfined()) {
            for (int size : new int[] {0, 1, 1000, 4001, 65_539, 1 << 20, 8 << 20}) {
                byte[] bytes = EchoProgram.pattern(size, size + 1);
                MemorySegment payload = arena.allocate(Math.max(size, 1)).asSlice(0, size);
                payload.copyFrom(MemorySegment.ofArray(bytes));
                MemorySegment target = arena.allocate(Math.max(size, 1));
                long readChunksBefore = st.readChunkCalls();
                long writeListBefore = st.replies(ReplyPath.WRITE_LIST);
                long t0 = System.nanoTime();
                RpcRdmaReply r = echoEligible(c, payload, target);
                System.out.printf(
                        "eligible echo %d bytes: call %s, reply %s, write list %s, %d ms%n",
                        size,
                        r.callKind(),
                        r.replyProcedure(),
                        r.usedWriteList(),
                        (System.nanoTime() - t0) / 1_000_000);
                assertTrue(r.isSuccess());
                byte[] back;
                if (r.usedWriteList() && r.placements().get(0).length() == size && size > 0) {
                    back = r.placements().get(0).placed().toArray(ValueLayout.JAVA_BYTE);
                    assertEquals(size, r.resultsDecoder().getInt(), "only the length word inline");
                    assertEquals(writeListBefore + 1, st.replies(ReplyPath.WRITE_LIST));
                } else {
                    back = r.resultsDecoder().getOpaqueBytes(EchoProgram.MAX);
                }
                assertArrayEquals(bytes, back, "eligible echo of " + size);
                if (size >= 65_539) {
                    assertEquals(CallPlan.Kind.READ_CHUNKS, r.callKind());
                    assertEquals(readChunksBefore + 1, st.readChunkCalls());
                    assertTrue(r.usedWriteList());
                }

                long positionZeroBefore = st.positionZeroCalls();
                long replyChunkBefore = st.replies(ReplyPath.REPLY_CHUNK);
                t0 = System.nanoTime();
                r = echoPlain(c, bytes);
                System.out.printf(
                        "plain echo %d bytes: call %s, reply %s, %d ms%n",
                        size, r.callKind(), r.replyProcedure(), (System.nanoTime() - t0) / 1_000_000);
                assertArrayEquals(bytes, r.resultsDecoder().getOpaqueBytes(EchoProgram.MAX), "plain echo " + size);
                if (size >= 65_539) { // 4001 bytes still fit a 4 KiB message both ways
                    assertEquals(CallPlan.Kind.POSITION_ZERO, r.callKind());
                    assertEquals(positionZeroBefore + 1, st.positionZeroCalls());
                    assertEquals(RdmaProcedure.RDMA_NOMSG, r.replyProcedure());
                    assertEquals(replyChunkBefore + 1, st.replies(ReplyPath.REPLY_CHUNK));
                }
            }
        }
        System.out.println("server paths: " + st);
    }

    @Test
    void thousandConcurrentCallsWithFourCredits(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 4);
        RpcRdmaClient c = client(s);
        List<CompletableFuture<Void>> all = new ArrayList<>();
        AtomicInteger maxOutstanding = new AtomicInteger();
        for (int i = 0; i < 1000; i++) {
            byte[] payload = EchoProgram.pattern(16 + i % 300, i);
            all.add(c.call(
                            EchoProgram.PROGRAM,
                            EchoProgram.VERSION,
                            EchoProgram.ECHO_PLAIN,
                            OpaqueAuth.NONE,
                            out -> out.putOpaque(payload, EchoProgram.MAX),
                            ReplyExpectation.SMALL)
                    .thenAccept(r -> {
                        maxOutstanding.accumulateAndGet(c.outstandingAndQueued()[0], Math::max);
                        assertArrayEquals(payload, r.resultsDecoder().getOpaqueBytes(EchoProgram.MAX));
                    }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
        assertEquals(4, c.negotiated().creditGrant());
        assertTrue(maxOutstanding.get() <= 4, "outstanding " + maxOutstanding.get());
        assertEquals(1000, s.statistics().replies(ReplyPath.INLINE));
    }

    @Test
    void connectionConfigurationProtocolAnswersTheConnectionsValues(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = server(device, 8);
        RpcRdmaClient c = client(s);
        ConfigRdma.Reply reply = ConfigRdmaCall.call(c, new ConfigRdma.Request(4096, 4096, 4), TIMEOUT)
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(new ConfigRdma.Reply(4096, 4, 16), reply);
        assertFalse(
                reply.maxCallSendSize() < c.negotiated().sendThreshold(),
                "the client's send threshold is within what the server accepts");
    }
}
