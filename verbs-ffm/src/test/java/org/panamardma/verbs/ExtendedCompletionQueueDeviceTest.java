package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** Extended polling (ibv_start_poll / ibv_next_poll) reports what legacy polling does. */
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
        try (Context ctxA = Context.open(device.name()); Context ctxB = Context.open(device.peerName().orElseThrow());
             WorkCompletions wc = WorkCompletions.allocate(8)) {
            CompletionQueue cqA = ctxA.createCompletionQueue(32, null, true);
            CompletionQueue cqB = ctxB.createCompletionQueue(32, null, true);
            assertTrue(cqA.isExtended() && cqB.isExtended(), "rxe has ibv_create_cq_ex");
            ProtectionDomain pdA = ctxA.allocateProtectionDomain();
            ProtectionDomain pdB = ctxB.allocateProtectionDomain();
            PreparedQueuePair pa = pdA.queuePair().completionQueue(cqA).prepare();
            PreparedQueuePair pb = pdB.queuePair().completionQueue(cqB).prepare();
            QueuePair a = pa.connect(pb.endpoint(), ConnectOptions.DEFAULTS.withRetryCount(1));
            QueuePair b = pb.connect(pa.endpoint(), ConnectOptions.DEFAULTS.withRetryCount(1));
            MemoryRegion src = pdA.allocate(4096, Access.ALL_REMOTE);
            MemoryRegion dst = pdB.allocate(4096, Access.ALL_REMOTE);

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
