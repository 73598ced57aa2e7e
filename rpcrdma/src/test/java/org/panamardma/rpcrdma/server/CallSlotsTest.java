package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * No more calls run on a connection than the credits it granted, also while it closes and when slots are taken and
 * given back from many threads at once (the poller's, where a receive completes, and the calls').
 */
class CallSlotsTest {
    @Test
    void noMoreSlotsThanCreditsAndAGivenBackSlotIsTakenAgain() {
        CallSlots slots = new CallSlots(4);
        for (int i = 0; i < 4; i++) {
            assertTrue(slots.tryTake(), "slot " + i);
        }
        assertFalse(slots.tryTake(), "all four are taken");
        slots.giveBack();
        assertTrue(slots.tryTake(), "the call ended: its slot goes to the next message");
        assertEquals(0, slots.free());
    }

    @Test
    void afterTheCloseNoSlotIsGivenOutEvenWhenCallsEnd() {
        CallSlots slots = new CallSlots(2);
        assertTrue(slots.tryTake());
        slots.close();
        assertFalse(slots.tryTake(), "a free slot is not given out once closed");
        slots.giveBack(); // the call in flight ends after the close
        for (int i = 0; i < 5; i++) {
            assertFalse(slots.tryTake(), "take " + i + " after the close");
        }
        assertEquals(2, slots.free(), "a take that got none keeps none");
    }

    @Test
    void threadsTakingAndGivingBackAtOnceNeverHoldMoreThanTheCredits() throws Exception {
        CallSlots slots = new CallSlots(3);
        AtomicInteger held = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 20_000; i++) {
                    if (slots.tryTake()) {
                        most.accumulateAndGet(held.incrementAndGet(), Math::max);
                        held.decrementAndGet();
                        slots.giveBack();
                    }
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(most.get() <= 3, "at most the credits at once: " + most.get());
        assertEquals(3, slots.free(), "every slot back");
    }

    @Test
    void noCreditsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CallSlots(0));
    }
}
