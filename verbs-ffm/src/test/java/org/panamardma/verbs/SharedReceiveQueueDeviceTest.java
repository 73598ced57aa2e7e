package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** Two connections receiving from one shared receive queue. */
@RdmaDeviceTest(transport = Transport.ROCE)
class SharedReceiveQueueDeviceTest {

    @Test
    void twoQueuePairsConsumeReceivesOfOneSrq(RdmaTestDevice device) throws RdmaException {
        try (Context client = Context.open(device.name());
                Context server = Context.open(device.peerName().orElseThrow());
                WorkCompletions wc = WorkCompletions.allocate(8)) {
            ProtectionDomain spd = server.allocateProtectionDomain();
            CompletionQueue scq = server.createCompletionQueue(32);
            SharedReceiveQueue srq = spd.createSharedReceiveQueue(16, 1);
            MemoryRegion buffers = spd.allocate(16 * 64, TestAccess.ALL_REMOTE);
            for (int i = 0; i < 4; i++) {
                srq.postReceive(1000 + i, buffers, i * 64L, 64);
            }
            ProtectionDomain cpd = client.allocateProtectionDomain();
            CompletionQueue ccq = client.createCompletionQueue(32);
            MemoryRegion src = cpd.allocate(64, TestAccess.ALL_REMOTE);
            Set<Integer> serverQpns = new HashSet<>();
            QueuePair[] clients = new QueuePair[2];
            for (int c = 0; c < 2; c++) {
                PreparedQueuePair cp = cpd.queuePair().completionQueue(ccq).prepare();
                PreparedQueuePair sp = spd.queuePair()
                        .completionQueue(scq)
                        .sharedReceiveQueue(srq)
                        .prepare();
                clients[c] = cp.connect(sp.endpoint());
                QueuePair s = sp.connect(cp.endpoint());
                serverQpns.add(s.qpNumber());
                assertThrows(
                        IllegalStateException.class,
                        () -> s.postReceive(1, buffers, 0, 8),
                        "a QP on an SRQ has no receive queue of its own");
            }
            for (int c = 0; c < 2; c++) {
                src.segment().setString(0, "from client " + c);
                clients[c].postSend(c, src, 0, 14, SendFlags.SIGNALED);
                long deadline = System.currentTimeMillis() + 20_000;
                int got = 0;
                while (got < 1 && System.currentTimeMillis() < deadline) {
                    got = scq.poll(wc);
                }
                assertEquals(1, got, "one receive completion for client " + c);
                wc.check(0);
                assertEquals(WcOpcode.RECV, wc.opcode(0));
                assertTrue(serverQpns.contains(wc.qpNumber(0)), "completed on one of the server QPs");
                long slot = wc.wrId(0) - 1000;
                assertEquals("from client " + c, buffers.segment().getString(slot * 64));
                while (ccq.poll(wc) == 0) {
                    Thread.onSpinWait();
                }
                wc.check(0);
            }
        }
    }
}
