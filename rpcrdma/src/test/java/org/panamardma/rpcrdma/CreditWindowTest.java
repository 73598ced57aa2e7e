package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CreditWindowTest {
    @Test
    void oneCreditUntilTheFirstReplyThenTheGrant() {
        CreditWindow<String> w = new CreditWindow<>(128);
        assertTrue(w.offer("a"));
        assertFalse(w.offer("b"));
        assertFalse(w.offer("c"));
        assertEquals(2, w.queued());
        assertEquals(List.of("b", "c"), w.replyReceived(32)); // grant 32: both queued calls go
        assertEquals(2, w.outstanding());
        assertEquals(32, w.grant());
    }

    @Test
    void callsBeyondTheGrantQueueInOrderAndNeverExceedIt() {
        CreditWindow<Integer> w = new CreditWindow<>(128);
        w.offer(0);
        w.replyReceived(4);
        List<Integer> sent = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            if (w.offer(i)) {
                sent.add(i);
            }
        }
        assertEquals(List.of(1, 2, 3, 4), sent);
        assertEquals(4, w.outstanding());
        assertEquals(List.of(5), w.replyReceived(4));
        assertEquals(List.of(6, 7), w.replyReceived(5)); // grant grew by one: two may go
        assertEquals(5, w.outstanding());
        assertEquals(List.of(), w.replyReceived(2)); // grant shrank: wait until below it
        assertEquals(List.of(), w.replyReceived(2));
        assertEquals(List.of(), w.replyReceived(2));
        assertEquals(2, w.outstanding());
        assertEquals(List.of(8), w.replyReceived(2));
        assertEquals(5, w.peakOutstanding());
    }

    @Test
    void aGrantOfZeroIsTreatedAsOne() {
        CreditWindow<String> w = new CreditWindow<>(8);
        assertTrue(w.offer("a"));
        assertFalse(w.offer("b"));
        assertEquals(List.of("b"), w.replyReceived(0));
        assertEquals(1, w.grant());
        assertFalse(w.offer("c"));
    }

    @Test
    void ourOwnCapLimitsAHugeGrant() {
        CreditWindow<Integer> w = new CreditWindow<>(3);
        w.offer(0);
        w.replyReceived(-1); // 2^32-1 credits: unsigned
        assertEquals(Integer.MAX_VALUE, w.grant());
        int sent = 0;
        for (int i = 0; i < 10; i++) {
            sent += w.offer(i) ? 1 : 0;
        }
        assertEquals(3, sent);
    }

    @Test
    void releaseCancelGrantUpdateAndClose() {
        CreditWindow<String> w = new CreditWindow<>(8);
        assertTrue(w.offer("a"));
        assertFalse(w.offer("b"));
        assertFalse(w.offer("c"));
        assertTrue(w.cancelQueued("b"));
        assertFalse(w.cancelQueued("b"));
        assertEquals(List.of("c"), w.release()); // "a" timed out
        assertEquals(List.of(), w.grantUpdated(1)); // late reply for "a": grant only
        assertFalse(w.offer("d"));
        assertEquals(List.of("d"), w.close());
        assertThrows(IllegalStateException.class, () -> w.offer("e"));
        w.release();
        assertThrows(IllegalStateException.class, w::release);
    }

    @Test
    void concurrentCallersNeverExceedTheGrant() throws InterruptedException {
        CreditWindow<Integer> w = new CreditWindow<>(64);
        int grant = 5;
        w.offer(-1);
        w.replyReceived(grant);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxSeen = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        ConcurrentLinkedQueue<Integer> sendable = new ConcurrentLinkedQueue<>();
        int calls = 2000;
        CountDownLatch done = new CountDownLatch(calls);
        Thread responder = Thread.ofPlatform().start(() -> {
            while (completed.get() < calls) {
                Integer c = sendable.poll();
                if (c == null) {
                    Thread.onSpinWait();
                    continue;
                }
                inFlight.decrementAndGet();
                completed.incrementAndGet();
                done.countDown();
                for (Integer next : w.replyReceived(grant)) {
                    maxSeen.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    sendable.add(next);
                }
            }
        });
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int base = t * (calls / 4);
            callers.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < calls / 4; i++) {
                    if (w.offer(base + i)) {
                        maxSeen.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                        sendable.add(base + i);
                    }
                }
            }));
        }
        for (Thread c : callers) {
            c.join();
        }
        assertTrue(done.await(30, java.util.concurrent.TimeUnit.SECONDS), "all calls completed");
        responder.join();
        assertTrue(maxSeen.get() <= grant, "in flight " + maxSeen.get() + " > grant " + grant);
        assertEquals(0, w.queued());
    }
}
