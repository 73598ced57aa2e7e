package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The client's timer keeps no ended call: a timeout cancelled by its reply leaves the queue at once, so the timer
 * thread is not woken once per call two minutes later to drop it; a timeout not cancelled still fires.
 */
class CallsTimerTest {
    @Test
    void cancelledTimeoutsLeaveTheQueueAndOthersStillFire() throws Exception {
        ScheduledThreadPoolExecutor timer = Calls.timer("rpcrdma-client-test");
        try {
            List<ScheduledFuture<?>> timeouts = new ArrayList<>();
            for (int call = 0; call < 1000; call++) {
                timeouts.add(timer.schedule(() -> {}, 120, TimeUnit.SECONDS));
            }
            assertEquals(1000, timer.getQueue().size());
            timeouts.forEach(t -> t.cancel(false)); // the replies came
            assertEquals(0, timer.getQueue().size(), "cancelled timeouts still queued");

            CountDownLatch fired = new CountDownLatch(1);
            ScheduledFuture<?> due = timer.schedule(fired::countDown, 10, TimeUnit.MILLISECONDS);
            assertTrue(fired.await(10, TimeUnit.SECONDS), "a timeout nobody cancelled did not fire");
            due.get(10, TimeUnit.SECONDS); // and its future completes
            assertTrue(timer.getThreadFactory().newThread(() -> {}).isDaemon(), "the timer must not keep a JVM alive");
        } finally {
            timer.shutdownNow();
        }
    }
}
