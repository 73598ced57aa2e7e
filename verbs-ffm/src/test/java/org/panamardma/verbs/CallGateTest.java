package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The gate that replaced the QP's and CQ's monitors on the data path (issue 26): one call at a time, none after
 * close, close waits for the call in progress and is not starved by a caller in a loop. Verdicts never rest on
 * timing: a slow host can only make these tests slower.
 */
class CallGateTest {

    @Test
    void admitsOneCallAtATime() throws Exception {
        CallGate gate = new CallGate();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        long[] counter = {0}; // a plain field: lost updates would show a missing exclusion too
        int threads = 4;
        int calls = 100_000;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < calls; i++) {
                    assertTrue(gate.enter());
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        counter[0]++;
                        inside.decrementAndGet();
                    } finally {
                        gate.leave();
                    }
                }
            }));
        }
        for (Thread w : workers) {
            w.join();
        }
        assertEquals(0, overlaps.get(), "calls inside the gate at once");
        assertEquals((long) threads * calls, counter[0]);
    }

    @Test
    void closeWaitsForTheCallInProgressAndThenNothingEnters() throws Exception {
        CallGate gate = new CallGate();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread caller = Thread.ofPlatform().start(() -> {
            assertTrue(gate.enter());
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                gate.leave();
            }
        });
        entered.await();
        CompletableFuture<Boolean> closed =
                CompletableFuture.supplyAsync(() -> gate.close(TimeUnit.SECONDS.toNanos(60)));
        Thread.sleep(200);
        assertFalse(closed.isDone(), "close returned while a call was inside");
        assertFalse(gate.enter(), "a call entered a closing gate");
        release.countDown();
        assertTrue(closed.get(60, TimeUnit.SECONDS));
        caller.join();
        assertFalse(gate.enter());
        assertTrue(gate.close(0), "closing again");
    }

    @Test
    void closeGivesUpOnACallThatNeverLeavesAndTheGateStaysShut() {
        CallGate gate = new CallGate();
        assertTrue(gate.enter()); // and never leaves: a provider stuck in a call
        long t0 = System.nanoTime();
        assertFalse(gate.close(TimeUnit.MILLISECONDS.toNanos(50)));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(50), "gave up before its timeout");
        gate.leave(); // the stuck call returns after all
        assertFalse(gate.enter(), "the gate of an object left allocated stays shut");
    }

    @Test
    void aCallerInALoopDoesNotStarveClose() throws Exception {
        CallGate gate = new CallGate();
        AtomicLong calls = new AtomicLong();
        CountDownLatch running = new CountDownLatch(1);
        Thread caller = Thread.ofPlatform().start(() -> {
            while (gate.enter()) {
                gate.leave();
                if (calls.incrementAndGet() == 1000) {
                    running.countDown();
                }
            }
        });
        running.await();
        assertTrue(gate.close(TimeUnit.SECONDS.toNanos(60)));
        caller.join(60_000);
        assertFalse(caller.isAlive(), "the caller's loop saw the gate shut");
    }
}
