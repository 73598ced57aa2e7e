package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** Sleeping on a completion channel instead of busy polling: arm, wait with a timeout, re-arm. */
@RdmaDeviceTest(transport = Transport.ROCE)
class CompletionChannelDeviceTest {

    @Test
    void waitsForACompletionTimesOutWhenNoneComesAndReArms(RdmaTestDevice device) throws Exception {
        try (Context ctxA = Context.open(device.name());
                Context ctxB = Context.open(device.peerName().orElseThrow());
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            CompletionChannel channel = ctxB.createCompletionChannel();
            CompletionQueue cqB = ctxB.createCompletionQueue(16, channel);
            CompletionQueue cqA = ctxA.createCompletionQueue(16);
            ProtectionDomain pdA = ctxA.allocateProtectionDomain();
            ProtectionDomain pdB = ctxB.allocateProtectionDomain();
            PreparedQueuePair pa = pdA.queuePair().completionQueue(cqA).prepare();
            PreparedQueuePair pb = pdB.queuePair().completionQueue(cqB).prepare();
            QueuePair a = pa.connect(pb.endpoint());
            QueuePair b = pb.connect(pa.endpoint());
            MemoryRegion src = pdA.allocate(64, TestAccess.ALL_REMOTE);
            MemoryRegion dst = pdB.allocate(64, TestAccess.ALL_REMOTE);

            cqB.requestNotification(false);
            long t0 = System.nanoTime();
            assertNull(channel.await(300), "no completion yet: the wait times out");
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(250), "it really waited");

            for (int round = 1; round <= 2; round++) {
                b.postReceive(round, dst, 0, 64);
                src.segment().setString(0, "round " + round);
                a.postSend(100 + round, src, 0, 8, SendFlags.NONE);
                assertSame(cqB, channel.await(20_000), "the event names the CQ that raised it");
                assertEquals(1, cqB.poll(wc));
                wc.check(0);
                assertEquals(round, wc.wrId(0));
                assertEquals("round " + round, dst.segment().getString(0));
                cqB.requestNotification(false); // re-arm for the next round
            }
        }
    }

    @Test
    void closingTheChannelWakesAWaiterWithAClearError(RdmaTestDevice device) throws Exception {
        try (Context ctx = Context.open(device.name())) {
            CompletionChannel channel = ctx.createCompletionChannel();
            CompletionQueue cq = ctx.createCompletionQueue(4, channel);
            cq.requestNotification(false);
            CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    channel.await(30_000);
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Thread.sleep(300);
            channel.close();
            Throwable t = waiter.get(10, TimeUnit.SECONDS);
            assertTrue(t instanceof IllegalStateException && t.getMessage().contains("closed"), String.valueOf(t));
            assertTrue(cq.isClosed(), "the CQ that used the channel was closed first");
            assertThrows(IllegalStateException.class, () -> cq.requestNotification(false));
        }
    }
}
