package org.panamardma.oncrpc.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link MemoryBudget}: limits, blame, waits, and the fair queue. The fairness cases order waiters by making each
 * one wait before the next starts ({@link MemoryBudget#waiting()}), so their verdicts do not depend on timing.
 */
class MemoryBudgetTest {
    private static final long LONG = TimeUnit.SECONDS.toNanos(60);

    @Test
    void aChildsBytesCountInItsParentAndTheTighterLimitIsBlamed() throws InterruptedException {
        MemoryBudget server = MemoryBudget.of("server", 100);
        MemoryBudget a = server.child("a", 80);
        MemoryBudget b = server.child("b", 80);
        assertNull(a.acquireOrBlame(70, 0));
        assertEquals(70, server.used());
        assertSame(a, a.acquireOrBlame(20, 0), "a's own limit");
        assertSame(server, b.acquireOrBlame(40, 0), "the server's limit: 70 + 40 > 100");
        assertEquals(0, b.used(), "nothing held after a refusal");
        assertNull(b.acquireOrBlame(30, 0));
        assertEquals(100, server.used());
        a.release(70);
        b.release(30);
        assertEquals(0, server.used());
        assertEquals(100, server.peak());
        assertTrue(server.refusals() >= 1 && a.refusals() >= 1);
        assertSame(a, a.acquireOrBlame(81, LONG), "more than the limit is refused without waiting");
        assertEquals(0, server.waiting());
    }

    @Test
    void budgetsNestOneLevelAndCountsMustBeSane() {
        MemoryBudget server = MemoryBudget.of("server", 100);
        MemoryBudget a = server.child("a", 80);
        assertThrows(UnsupportedOperationException.class, () -> a.child("a1", 10));
        assertThrows(IllegalArgumentException.class, () -> a.acquire(-1, 0));
        assertThrows(IllegalStateException.class, () -> a.release(1), "nothing held");
        assertThrows(IllegalArgumentException.class, () -> MemoryBudget.of("x", -1));
    }

    @Test
    void anAcquisitionWaitsForARelease() throws Exception {
        MemoryBudget budget = MemoryBudget.of("b", 10);
        assertTrue(budget.acquire(10, 0));
        boolean[] got = new boolean[1];
        Thread t = Thread.ofVirtual().start(() -> got[0] = acquire(budget, 5));
        awaitWaiting(budget, 1);
        budget.release(10);
        t.join(30_000);
        assertTrue(got[0]);
        assertEquals(5, budget.used());
    }

    @Test
    void aWaitThatRunsOutIsRefusedAndBlamesWhatHeldItBack() throws Exception {
        MemoryBudget server = MemoryBudget.of("server", 10);
        MemoryBudget a = server.child("a", 10);
        MemoryBudget b = server.child("b", 4);
        assertTrue(a.acquire(8, 0));
        assertTrue(b.acquire(2, 0));
        long t0 = System.nanoTime();
        assertSame(server, a.acquireOrBlame(2, TimeUnit.MILLISECONDS.toNanos(50)), "the server is full");
        assertSame(b, b.acquireOrBlame(3, TimeUnit.MILLISECONDS.toNanos(50)), "b's own limit: 2 + 3 > 4");
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(100), "both waited their time");
        assertEquals(0, server.waiting(), "a refused request leaves the queue");
        assertEquals(10, server.used());
    }

    /**
     * The fairness the RDMA and TCP servers rely on: a connection that holds the whole server budget and queues
     * more requests does not get the memory it gives back while another connection, holding nothing, waits. (With
     * the budget of 5c5f9a1, every waiter woke on a release and the hog's first request, the longest waiting, took
     * it.)
     */
    @Test
    void memoryGivenBackGoesToTheConnectionHoldingLeastNotToTheLongestWaiting() throws Exception {
        MemoryBudget server = MemoryBudget.of("server", 10);
        MemoryBudget hog = server.child("hog", 100);
        MemoryBudget good = server.child("good", 100);
        assertTrue(hog.acquire(10, 0));
        List<String> order = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int n = i;
            threads.add(Thread.ofVirtual().start(() -> {
                if (acquire(hog, 2)) {
                    order.add("hog" + n);
                }
            }));
            awaitWaiting(hog, i + 1);
        }
        threads.add(Thread.ofVirtual().start(() -> {
            if (acquire(good, 2)) {
                order.add("good");
            }
        }));
        awaitWaiting(good, 1);
        assertFalse(good.acquire(1, 0), "a newcomer does not jump the queue either");
        hog.release(2);
        awaitGranted(order, 1);
        assertEquals(List.of("good"), order, "the connection holding nothing is served first");
        hog.release(2);
        awaitGranted(order, 2);
        assertEquals("hog0", order.get(1), "then the hog, in its own order");
        hog.release(2); // one grant at a time: two granted at once would append to the list in either order
        awaitGranted(order, 3);
        assertEquals("hog1", order.get(2));
        hog.release(4);
        for (Thread t : threads) {
            t.join(30_000);
        }
        assertEquals(List.of("good", "hog0", "hog1", "hog2"), order);
        assertEquals(8, server.used());
    }

    @Test
    void aLargeRequestIsNotStarvedBySmallOnesRankedBehindIt() throws Exception {
        MemoryBudget server = MemoryBudget.of("server", 10);
        MemoryBudget big = server.child("big", 10);
        MemoryBudget small = server.child("small", 10);
        MemoryBudget holder = server.child("holder", 10);
        assertTrue(holder.acquire(9, 0));
        CountDownLatch bigGot = new CountDownLatch(1);
        Thread b = Thread.ofVirtual().start(() -> {
            if (acquire(big, 8)) {
                bigGot.countDown();
            }
        });
        awaitWaiting(big, 1);
        assertFalse(small.acquire(1, 0), "1 byte is free, but the big request ranks first");
        holder.release(9);
        assertTrue(bigGot.await(30, TimeUnit.SECONDS));
        b.join();
        assertEquals(8, server.used());
    }

    @Test
    void aRequestOverItsOwnConnectionsLimitDoesNotHoldUpOthers() throws Exception {
        MemoryBudget server = MemoryBudget.of("server", 10);
        MemoryBudget capped = server.child("capped", 4);
        MemoryBudget other = server.child("other", 10);
        assertTrue(capped.acquire(4, 0));
        Thread t = Thread.ofVirtual().start(() -> acquire(capped, 2));
        awaitWaiting(capped, 1);
        assertTrue(other.acquire(6, 0), "the capped request waits for its own connection, not the server");
        capped.release(4);
        t.join(30_000);
        assertEquals(8, server.used());
    }

    @Test
    void anInterruptedWaitHoldsNothing() throws Exception {
        MemoryBudget server = MemoryBudget.of("server", 10);
        MemoryBudget a = server.child("a", 10);
        assertTrue(a.acquire(10, 0));
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                a.acquire(5, LONG);
            } catch (InterruptedException expected) {
                // what the test wants
            }
        });
        awaitWaiting(a, 1);
        t.interrupt();
        t.join(30_000);
        assertEquals(0, server.waiting());
        a.release(10);
        assertEquals(0, server.used());
    }

    private static boolean acquire(MemoryBudget budget, long bytes) {
        try {
            return budget.acquire(bytes, LONG);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void awaitWaiting(MemoryBudget budget, int n) throws InterruptedException {
        long deadline = System.nanoTime() + LONG;
        while (budget.waiting() < n) {
            assertTrue(System.nanoTime() < deadline, "never " + n + " waiting on " + budget);
            Thread.sleep(1);
        }
    }

    private static void awaitGranted(List<String> order, int n) throws InterruptedException {
        long deadline = System.nanoTime() + LONG;
        while (order.size() < n) {
            assertTrue(System.nanoTime() < deadline, "never " + n + " granted");
            Thread.sleep(1);
        }
    }
}
