package org.panamardma.verbs.trusted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.panamardma.testing.LogCapture;

/**
 * A completion callback's or a scheduled task's failure is logged where {@code whenComplete}/{@code schedule} alone
 * would drop it with a future nobody reads (Error Prone's FutureReturnValueIgnored), and a periodic task keeps
 * running after one failed run (a plain {@code scheduleWithFixedDelay} silently stops: the RPC-over-RDMA client's
 * registration sweep did).
 */
class CallbacksTest {
    @RegisterExtension
    private final LogCapture log = LogCapture.of(Callbacks.class);

    @Test
    void aCallbackThatThrowsIsLoggedAsAnErrorNamingItsOwner() {
        CompletableFuture<String> f = new CompletableFuture<>();
        IllegalStateException boom = new IllegalStateException("boom");
        Callbacks.whenDone(f, "connection rc-7", (v, t) -> {
            throw boom;
        });
        f.complete("done");
        assertEquals(1, log.records().size(), "one record for one failed callback");
        LogRecord r = log.records().get(0);
        assertEquals(Level.SEVERE, r.getLevel());
        assertSame(boom, r.getThrown());
        assertTrue(r.getMessage().contains("connection rc-7"), r.getMessage());
    }

    @Test
    void theCallbackSeesTheFutureOutcomeAndACallbackThatDoesNotThrowLogsNothing() {
        CompletableFuture<String> f = new CompletableFuture<>();
        List<Object> seen = new ArrayList<>();
        Callbacks.whenDone(f, "x", (v, t) -> seen.add(t));
        RuntimeException cause = new RuntimeException("send failed");
        f.completeExceptionally(cause);
        assertEquals(List.of(cause), seen);
        assertTrue(
                log.records().isEmpty(),
                "the future's own failure is the callback's to handle, not a callback failure");
    }

    @Test
    void aPeriodicTaskGoesOnAfterAFailedRunAndTheFailureIsLogged() throws InterruptedException {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch third = new CountDownLatch(3);
            var _ = timer.scheduleWithFixedDelay(
                    Callbacks.logging("sweep", () -> {
                        third.countDown();
                        if (runs.incrementAndGet() == 1) {
                            throw new IllegalStateException("first sweep fails");
                        }
                    }),
                    0,
                    1,
                    TimeUnit.MILLISECONDS);
            // without the wrapper the first failure ends the schedule: the latch would never reach 0
            assertTrue(third.await(30, TimeUnit.SECONDS), "runs after the failed one: " + (runs.get() - 1));
        } finally {
            timer.shutdownNow();
        }
        assertFalse(log.records().isEmpty());
        assertEquals("first sweep fails", log.records().get(0).getThrown().getMessage());
    }
}
