package org.panamardma.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.verbs.AsyncEvent;
import org.panamardma.verbs.AsyncEventMonitor;
import org.panamardma.verbs.AsyncEventType;
import org.panamardma.verbs.AsyncEventWait;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.SharedReceiveQueue;
import org.panamardma.verbs.TestAccess;
import org.panamardma.verbs.WcOpcode;
import org.panamardma.verbs.WorkCompletions;

/**
 * Async events on a connection made through rdma_cm, on each transport: a server whose queue pair receives from a
 * shared receive queue with an armed limit gets SRQ_LIMIT_REACHED, naming the SRQ, once the client's sends have
 * consumed receives below the limit.
 */
abstract class CmAsyncEventDeviceTests {

    @Test
    void consumingReceivesBelowTheArmedLimitReportsSrqLimitReached(RdmaTestDevice device) throws Exception {
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        try (CmTestPair pair = new CmTestPair()) {
            InetSocketAddress address = CmTestPair.serverAddress(device, false);
            pair.listen(address);
            AsyncEventMonitor[] monitor = new AsyncEventMonitor[1];
            SharedReceiveQueue[] srq = new SharedReceiveQueue[1];
            MemoryRegion[] buffers = new MemoryRegion[1];
            CompletionQueue[] serverCq = new CompletionQueue[1];
            ProtectionDomain[] serverPd = new ProtectionDomain[1];
            CmConnector.QueuePairFactory serverFactory = id -> {
                var ctx = id.context();
                monitor[0] = ctx.monitorAsyncEvents(events::add);
                ProtectionDomain pd = ctx.allocateProtectionDomain();
                serverPd[0] = pd;
                serverCq[0] = ctx.createCompletionQueue(32);
                srq[0] = pd.createSharedReceiveQueue(16, 1);
                buffers[0] = pd.allocate(8 * 64, TestAccess.ALL_REMOTE);
                for (int i = 0; i < 8; i++) {
                    srq[0].postReceive(100 + i, buffers[0], i * 64L, 64);
                }
                srq[0].armLimit(6);
                return id.createQueuePair(pd, QueuePairOptions.of(serverCq[0]).withSharedReceiveQueue(srq[0]));
            };
            CompletableFuture<CmConnector.Connection> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return CmConnector.acceptOne(
                            pair.listener, ConnectionParameters.DEFAULTS, serverFactory, CmTestPair.TIMEOUT);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            pair.clientConnection = CmConnector.connect(
                    pair.clientChannel, address, ConnectionParameters.DEFAULTS, pair.client, CmTestPair.TIMEOUT);
            pair.serverConnection = accepted.get(60, TimeUnit.SECONDS);
            try {
                QueuePair qp = pair.clientConnection.queuePair();
                // 8 receives posted, limit 6: the third consumed leaves 5 < 6
                for (int i = 0; i < 3; i++) {
                    pair.client.mr.segment().setString(0, "message " + i);
                    qp.postSend(i, pair.client.mr, 0, 10, SendFlags.SIGNALED);
                    pair.expectSuccess(pair.client.cq, i, WcOpcode.SEND);
                }
                try (WorkCompletions wc = WorkCompletions.allocate(4)) {
                    for (int got = 0; got < 3; ) {
                        int n = serverCq[0].poll(wc);
                        for (int k = 0; k < n; k++) {
                            wc.check(k);
                            assertEquals("message " + got, buffers[0].segment().getString((wc.wrId(k) - 100) * 64));
                            got++;
                        }
                    }
                }
                AsyncEvent e = AsyncEventWait.next(events, AsyncEventType.SRQ_LIMIT_REACHED);
                assertSame(srq[0], e.sharedReceiveQueue().orElseThrow(), "the event names our SRQ: " + e);
                assertEquals(device.peerName().orElseThrow(), e.deviceName());
            } finally {
                monitor[0].close();
                serverPd[0].close(); // and with it the server's QP, SRQ and buffers
                serverCq[0].close();
            }
        }
    }
}
