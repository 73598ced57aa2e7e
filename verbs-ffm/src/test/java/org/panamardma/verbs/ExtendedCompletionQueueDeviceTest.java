package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/**
 * Extended CQs and QPs report what legacy ones do: polled with ibv_poll_cq, as the library polls them on rxe
 * (ProviderTraits: rxe_poll_cq serves the CQs create_cq_ex makes), and with ibv_start_poll / ibv_next_poll and every
 * request through ibv_wr_*, the path of providers not known to allow that (and the only one before issue 26).
 */
@RdmaDeviceTest(transport = Transport.ROCE)
class ExtendedCompletionQueueDeviceTest {

    private static int pollOne(CompletionQueue cq, WorkCompletions wc) throws RdmaException {
        long deadline = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < deadline) {
            int n = cq.poll(wc);
            if (n > 0) {
                return n;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion");
    }

    @Test
    void extendedCqsReportOpcodesLengthsImmediatesAndErrors(RdmaTestDevice device) throws RdmaException {
        reportsOpcodesLengthsImmediatesAndErrors(device, false, false);
    }

    @Test
    void extendedCqsPolledWithTheExtendedApiReportOpcodesLengthsImmediatesAndErrors(RdmaTestDevice device)
            throws RdmaException {
        reportsOpcodesLengthsImmediatesAndErrors(
                device, true, !RdmaCore.version().atLeast(55));
    }

    /** The workaround for rxe before rdma-core 55 (RdmaCore.Quirk.RXE_END_POLL_OVERRUN), run on any release. */
    @Test
    void extendedCqsPolledOneCompletionPerBatchAsOnRdmaCore44(RdmaTestDevice device) throws RdmaException {
        RdmaCore.assumeForTest(44);
        try {
            reportsOpcodesLengthsImmediatesAndErrors(device, true, true);
            everyCompletionOnceAfterEmptyPolls(device, true, true);
        } finally {
            RdmaCore.assumeForTest(null);
        }
    }

    /**
     * Completions polled one at a time into a larger array (so the provider finds the queue empty after each, the
     * sequence rxe before rdma-core 55 got wrong): each comes exactly once, in order, and nothing comes after.
     */
    @Test
    void everyCompletionOnceAfterEmptyPolls(RdmaTestDevice device) throws RdmaException {
        everyCompletionOnceAfterEmptyPolls(device, false, false);
        everyCompletionOnceAfterEmptyPolls(device, true, !RdmaCore.version().atLeast(55));
    }

    /**
     * {@code extendedApi}: poll with ibv_start_poll and post every request with ibv_wr_*; else as the library does on
     * rxe, ibv_poll_cq on the extended CQ and ibv_post_send on the extended QP.
     */
    private static CompletionQueue extendedCq(Context ctx, boolean extendedApi) throws RdmaException {
        CompletionQueue cq = ctx.createCompletionQueue(32, null, true);
        assertTrue(cq.isExtended(), "rxe has ibv_create_cq_ex");
        assertFalse(cq.pollsWithExtendedApi(), "rxe's extended CQs are polled with ibv_poll_cq by default");
        return extendedApi ? cq.pollWithExtendedApiForTest() : cq;
    }

    private static void everyCompletionOnceAfterEmptyPolls(RdmaTestDevice device, boolean extendedApi, boolean oneByOne)
            throws RdmaException {
        try (Context ctxA = Context.open(device.name());
                Context ctxB = Context.open(device.peerName().orElseThrow());
                WorkCompletions wc = WorkCompletions.allocate(8)) {
            CompletionQueue cqA = extendedCq(ctxA, extendedApi);
            CompletionQueue cqB = ctxB.createCompletionQueue(32, null, false);
            assertEquals(oneByOne, cqA.pollsOneCompletionPerBatch() && extendedApi);
            ProtectionDomain pdA = ctxA.allocateProtectionDomain();
            ProtectionDomain pdB = ctxB.allocateProtectionDomain();
            PreparedQueuePair pa = pdA.queuePair()
                    .completionQueue(cqA)
                    .workRequestsForEveryOpcode(extendedApi)
                    .prepare();
            PreparedQueuePair pb = pdB.queuePair().completionQueue(cqB).prepare();
            QueuePair a = pa.connect(pb.endpoint(), ConnectOptions.DEFAULTS);
            pb.connect(pa.endpoint(), ConnectOptions.DEFAULTS);
            MemoryRegion src = pdA.allocate(4096, TestAccess.ALL_REMOTE);
            MemoryRegion dst = pdB.allocate(4096, TestAccess.ALL_REMOTE);
            for (int i = 0; i < 40; i++) { // more than the queue's 32 entries: the indexes wrap
                src.segment().set(JAVA_INT, 0, i);
                a.postWrite(100 + i, src, 0, 4, dst.address() + 4L * i, dst.rkey(), SendFlags.SIGNALED);
                assertEquals(1, pollOne(cqA, wc), "one write, one completion");
                wc.check(0);
                assertEquals(100 + i, wc.wrId(0));
                assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
                assertEquals(i, dst.segment().get(JAVA_INT, 4L * i));
            }
            assertEquals(0, cqA.poll(wc), "no completion beyond the ones made");
        }
    }

    private static void reportsOpcodesLengthsImmediatesAndErrors(
            RdmaTestDevice device, boolean extendedApi, boolean oneByOne) throws RdmaException {
        try (Context ctxA = Context.open(device.name());
                Context ctxB = Context.open(device.peerName().orElseThrow());
                WorkCompletions wc = WorkCompletions.allocate(8)) {
            CompletionQueue cqA = extendedCq(ctxA, extendedApi);
            CompletionQueue cqB = extendedCq(ctxB, extendedApi);
            assertEquals(oneByOne, cqA.pollsOneCompletionPerBatch() && cqB.pollsOneCompletionPerBatch() && extendedApi);
            ProtectionDomain pdA = ctxA.allocateProtectionDomain();
            ProtectionDomain pdB = ctxB.allocateProtectionDomain();
            PreparedQueuePair pa = pdA.queuePair()
                    .completionQueue(cqA)
                    .workRequestsForEveryOpcode(extendedApi)
                    .prepare();
            PreparedQueuePair pb = pdB.queuePair()
                    .completionQueue(cqB)
                    .workRequestsForEveryOpcode(extendedApi)
                    .prepare();
            QueuePair a = pa.connect(pb.endpoint(), ConnectOptions.DEFAULTS.withRetryCount(1));
            QueuePair b = pb.connect(pa.endpoint(), ConnectOptions.DEFAULTS.withRetryCount(1));
            MemoryRegion src = pdA.allocate(4096, TestAccess.ALL_REMOTE);
            MemoryRegion dst = pdB.allocate(4096, TestAccess.ALL_REMOTE);

            b.postReceive(1, dst, 0, 4096);
            b.postReceive(2, dst, 0, 4096);
            src.segment().setString(0, "extended");
            a.postSendWithImmediate(10, src, 0, 9, 0x7777, SendFlags.SIGNALED);
            a.postWriteWithImmediate(11, src, 0, 100, dst.address() + 1000, dst.rkey(), 0x8888, SendFlags.SIGNALED);

            int got = 0;
            while (got < 2) {
                int n = pollOne(cqB, wc);
                for (int i = 0; i < n; i++, got++) {
                    wc.check(i);
                    assertEquals(got + 1, wc.wrId(i), "receives complete in order");
                    assertEquals(b.qpNumber(), wc.qpNumber(i));
                    assertTrue(wc.hasImmediate(i));
                    if (got == 0) {
                        assertEquals(WcOpcode.RECV, wc.opcode(i));
                        assertEquals(9, wc.byteLength(i));
                        assertEquals(0x7777, wc.immediate(i));
                    } else {
                        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode(i));
                        assertEquals(0x8888, wc.immediate(i));
                    }
                }
            }
            assertEquals("extended", dst.segment().getString(0));
            got = 0;
            while (got < 2) {
                got += pollOne(cqA, wc);
            }

            a.postRead(12, src, 0, 8, dst.address(), dst.rkey() + 1, SendFlags.SIGNALED);
            pollOne(cqA, wc);
            assertFalse(wc.isSuccess(0));
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(0));
            assertEquals(12, wc.wrId(0));
        }
    }
}
