package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The event loop's sleep: waking from another thread, timeouts, no wait without an end; no RDMA device needed. */
class FdWaiterTest {
    @Test
    void aWakeupFromAnotherThreadEndsTheWait() throws Exception {
        try (FdWaiter waiter = FdWaiter.create()) {
            CountDownLatch waiting = new CountDownLatch(1);
            Thread waker = Thread.ofPlatform().start(() -> {
                try {
                    waiting.await();
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                waiter.wakeup();
            });
            waiting.countDown();
            long start = System.nanoTime();
            assertEquals(0, waiter.await(30_000), "the wake-up is no watched descriptor");
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20), "woken, not timed out");
            waker.join();
        }
    }

    @Test
    void aWakeupBeforeTheWaitIsNotLostAndIsConsumedOnce() throws Exception {
        try (FdWaiter waiter = FdWaiter.create()) {
            waiter.wakeup();
            waiter.wakeup();
            long start = System.nanoTime();
            waiter.await(30_000);
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20), "the earlier wake-up counted");
            start = System.nanoTime();
            waiter.await(100);
            assertTrue(
                    System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(90),
                    "the two wake-ups were consumed by the first wait: the second waits out its timeout");
        }
    }

    @Test
    void refusesWaitsWithoutEndAndUseAfterClose() throws Exception {
        FdWaiter waiter = FdWaiter.create();
        assertThrows(IllegalArgumentException.class, () -> waiter.await(-1));
        assertThrows(IllegalArgumentException.class, () -> waiter.add(-3));
        waiter.close();
        waiter.wakeup(); // after close: nothing, no write to a reused descriptor number
        assertThrows(IllegalStateException.class, () -> waiter.await(0));
        waiter.close();
    }

    @Test
    void watchesAndForgetsDescriptors() throws Exception {
        try (FdWaiter waiter = FdWaiter.create();
                FdWaiter other = FdWaiter.create()) {
            // no readable descriptor of our own to watch without a device: stdin's number stands for one
            waiter.add(0);
            assertEquals(1, waiter.size());
            assertThrows(IllegalArgumentException.class, () -> waiter.add(0));
            assertTrue(waiter.remove(0));
            assertEquals(0, waiter.size());
            assertEquals(false, waiter.remove(0));
            other.wakeup();
        }
    }
}
