package org.panamardma.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Credit-based flow control on a fake transport: two sides exchange frames through queues that stand for the
 * wire, in random interleavings. Checked: no side ever sends into a receive buffer the peer has not posted (what
 * iWARP punishes with a fatal error), no deadlock while both applications read, no credit frames answering each
 * other for ever, and a side whose application stops reading stops the other (backpressure) until it reads again.
 */
class CreditFlowTest {
    /** One side of the fake connection. */
    static final class Side {
        final CreditFlow flow;
        final int depth;
        int posted; // receive buffers posted now
        int heldByApp; // frames received and not yet read (their buffers not posted again)
        int dataToSend;
        long dataSent;
        long dataReceived;
        long creditFrames;
        boolean reading = true;
        final ArrayDeque<int[]> wire = new ArrayDeque<>(); // frames to the peer: {isCredit, credits}

        Side(int depth, int peerDepth) {
            this.flow = new CreditFlow(depth, peerDepth);
            this.depth = depth;
            this.posted = depth;
        }

        /** Sends what it can: data frames while allowed, then a credit frame if due. */
        void send(Random r) {
            while (dataToSend > 0 && flow.canSend(0) && r.nextInt(4) != 0) {
                wire.add(new int[] {0, flow.onSend()});
                dataToSend--;
                dataSent++;
            }
            if (flow.creditFrameDue()) {
                wire.add(new int[] {1, flow.onSend()});
                creditFrames++;
            }
        }

        /** One frame arrives from the peer. */
        void receive(int[] frame, int peerDepth) {
            assertTrue(posted > 0, "a SEND arrived with no receive posted: the sender overran its credits");
            posted--;
            flow.onCreditsReturned(frame[1], peerDepth);
            if (frame[0] == 1) {
                repost();
            } else {
                dataReceived++;
                heldByApp++;
            }
        }

        void read(Random r) {
            while (reading && heldByApp > 0 && r.nextInt(3) != 0) {
                heldByApp--;
                repost();
            }
        }

        private void repost() {
            posted++;
            assertTrue(posted <= depth);
            flow.onReposted();
        }
    }

    @RepeatedTest(50)
    void bothSidesDeliverEverythingWithoutOverrunOrDeadlock() {
        Random r = new Random();
        long seed = r.nextLong();
        r.setSeed(seed);
        int depthA = 4 + r.nextInt(29);
        int depthB = 4 + r.nextInt(29);
        Side a = new Side(depthA, depthB);
        Side b = new Side(depthB, depthA);
        a.dataToSend = 2000;
        b.dataToSend = r.nextInt(2000);
        long bToSend = b.dataToSend;
        int idle = 0;
        for (int step = 0; step < 1_000_000 && idle < 1000; step++) {
            long before = a.dataReceived + b.dataReceived + a.creditFrames + b.creditFrames;
            a.send(r);
            b.send(r);
            deliver(a, b, r, depthA);
            deliver(b, a, r, depthB);
            a.read(r);
            b.read(r);
            boolean quiet = a.wire.isEmpty() && b.wire.isEmpty();
            idle = quiet && before == a.dataReceived + b.dataReceived + a.creditFrames + b.creditFrames ? idle + 1 : 0;
        }
        assertEquals(2000, b.dataReceived, "seed " + seed + ": every frame of A arrived");
        assertEquals(bToSend, a.dataReceived, "seed " + seed + ": every frame of B arrived");
        assertTrue(
                a.creditFrames + b.creditFrames < 4000,
                "seed " + seed + ": credit frames stay a fraction of " + "the data: "
                        + (a.creditFrames + b.creditFrames));
    }

    private static void deliver(Side from, Side to, Random r, int fromDepth) {
        int n = r.nextInt(from.wire.size() + 1);
        for (int i = 0; i < n; i++) {
            to.receive(from.wire.poll(), fromDepth);
        }
    }

    @Test
    void aReaderThatStopsStopsTheWriterUntilItReadsAgain() {
        Random r = new Random(7);
        Side a = new Side(8, 8);
        Side b = new Side(8, 8);
        a.dataToSend = 1000;
        b.reading = false;
        for (int step = 0; step < 10_000; step++) {
            a.send(r);
            deliver(a, b, r, 8);
            deliver(b, a, r, 8);
            b.send(r);
            b.read(r);
        }
        assertTrue(
                b.dataReceived <= 8,
                "at most the receive buffers' worth arrives while nobody reads: " + b.dataReceived);
        assertFalse(a.flow.canSend(0), "the writer holds no credit for data");
        b.reading = true;
        for (int step = 0; step < 100_000 && b.dataReceived < 1000; step++) {
            a.send(r);
            deliver(a, b, r, 8);
            b.read(r);
            b.send(r);
            deliver(b, a, r, 8);
        }
        assertEquals(1000, b.dataReceived, "reading again resumes the stream");
    }

    @Test
    void aPeerReturningMoreCreditsThanItHasBuffersIsCaught() {
        CreditFlow f = new CreditFlow(8, 8);
        f.onSend();
        assertThrows(IllegalStateException.class, () -> f.onCreditsReturned(2, 8));
        f.onCreditsReturned(1, 8);
        assertThrows(IllegalArgumentException.class, () -> new CreditFlow(3, 8));
    }
}
