package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** A device's asynchronous events, made to happen for real on Soft-RoCE and delivered as typed Java values. */
@RdmaDeviceTest(transport = Transport.ROCE)
class AsyncEventDeviceTest {

    @Test
    void overrunningACompletionQueueReportsCqErrNamingThatQueue(RdmaTestDevice device) throws Exception {
        try (Context a = Context.open(device.name());
                Context b = Context.open(device.peerName().orElseThrow())) {
            BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
            AsyncEventMonitor monitor = a.monitorAsyncEvents(events::add);
            assertThrows(IllegalStateException.class, () -> a.monitorAsyncEvents(e -> {}), "one monitor per context");
            ProtectionDomain pdA = a.allocateProtectionDomain();
            ProtectionDomain pdB = b.allocateProtectionDomain();
            CompletionQueue tiny = a.createCompletionQueue(1);
            CompletionQueue cqB = b.createCompletionQueue(16);
            int writes = tiny.capacity() + 4;
            PreparedQueuePair pa =
                    pdA.queuePair().completionQueue(tiny).sendQueueDepth(writes).prepare();
            PreparedQueuePair pb = pdB.queuePair().completionQueue(cqB).prepare();
            QueuePair qa = pa.connect(pb.endpoint());
            pb.connect(pa.endpoint());
            MemoryRegion src = pdA.allocate(64, TestAccess.ALL_REMOTE);
            MemoryRegion dst = pdB.allocate(64, TestAccess.ALL_REMOTE);
            src.segment().set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 0x5A5A5A5A5A5A5A5AL);
            // more signaled completions than the CQ holds, never polled: the device cannot queue the last ones
            for (int i = 0; i < writes; i++) {
                qa.postWrite(i, src, 0, 8, dst.address(), dst.rkey(), SendFlags.SIGNALED);
            }
            AsyncEvent e = AsyncEventWait.next(events, AsyncEventType.CQ_ERR);
            assertSame(tiny, e.completionQueue().orElseThrow(), "the event names our Java CQ: " + e);
            assertEquals(device.name(), e.deviceName());
            assertTrue(e.type().isError());
            assertEquals(
                    0x5A5A5A5A5A5A5A5AL,
                    dst.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG, 0),
                    "the writes did move data before the CQ overflowed");
            monitor.close();
            // another monitor may start once the first is closed; closing the context closes it
            AsyncEventMonitor second = a.monitorAsyncEvents(events::add);
            a.close();
            assertTrue(second.isClosed(), "closing the context closes its monitor");
        }
    }
}
