package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The deadline of a chunk's RDMA Reads and Writes (issue 25 item 5): at 5c5f9a1 a transfer the peer never completed
 * was waited for the connection's 30 s timeout, its memory held all that time. Since issue 26 the call's thread waits
 * untimed and the server's watch fails the wait at its deadline ({@link TransferWaits}).
 */
class TransferDeadlineTest {
    @Test
    void aTransferThatNeverCompletesFailsTheCallAtItsDeadline() throws Exception {
        TransferWaits waits = new TransferWaits();
        CompletableFuture<Void> never = new CompletableFuture<>();
        CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
        CompletableFuture<IOException> failed = new CompletableFuture<>();
        long t0 = System.nanoTime();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                waits.await(List.of(done, never), "RDMA Read", 200);
                failed.complete(null);
            } catch (IOException e) {
                failed.complete(e);
            }
        });
        // the server's watch, every 10 ms: nothing expires before the deadline, the wait fails at the first look after
        int expired = 0;
        while (!failed.isDone() && System.nanoTime() - t0 < 20_000_000_000L) {
            long now = System.nanoTime();
            int n = waits.expireOverdue(now);
            if (n > 0) {
                assertTrue(now - t0 >= 200_000_000L, "expired " + (now - t0) / 1_000_000 + " ms after the wait began");
            }
            expired += n;
            Thread.sleep(10);
        }
        IOException e = failed.get(20, TimeUnit.SECONDS);
        long waited = (System.nanoTime() - t0) / 1_000_000;
        assertNotNull(e, "the wait returned though a transfer never completed");
        assertInstanceOf(
                TimeoutException.class,
                e.getCause(),
                "what ServerConnection counts as a transfer timeout and closes the connection for");
        assertEquals("RDMA Read did not complete in 200 ms", e.getMessage());
        assertEquals(1, expired);
        assertTrue(waited >= 200, "waited " + waited + " ms");
        assertTrue(waiter.join(Duration.ofSeconds(10)));
        assertEquals(0, waits.size(), "the failed wait is still registered");
        assertFalse(never.isDone(), "the transfer's own future is the connection's: only the wait is failed");
    }

    @Test
    void transfersThatCompleteBeforeTheirDeadlineAreNeitherFailedNorKept() throws Exception {
        TransferWaits waits = new TransferWaits();
        CompletableFuture<Void> later = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                waits.await(List.of(later), "RDMA Read", 60_000);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        while (waits.size() == 0) {
            Thread.sleep(1);
        }
        assertEquals(0, waits.expireOverdue(System.nanoTime()), "expired a minute early");
        later.complete(null);
        assertTrue(waiter.join(Duration.ofSeconds(10)));
        assertEquals(0, waits.size());
        waits.await(List.of(CompletableFuture.completedFuture(null)), "RDMA Read", 1);
        assertEquals(0, waits.size(), "a wait that had nothing to wait for was registered");
        // a transfer that fails (the connection flushed it) is the device's error, not a timeout
        CompletableFuture<Void> flushed = CompletableFuture.failedFuture(new IOException("WR_FLUSH_ERR"));
        IOException e = assertThrows(IOException.class, () -> waits.await(List.of(flushed), "RDMA Read", 60_000));
        assertEquals("RDMA Read failed: WR_FLUSH_ERR", e.getMessage());
        // a wait whose deadline passes after the device completed it is not failed afterwards
        assertEquals(0, waits.expireOverdue(System.nanoTime() + 120_000_000_000L));
    }

    @Test
    void theWatchLooksAtAQuarterOfTheShortestTimeoutWithinBounds() {
        assertEquals(
                1_250,
                IdleWatch.periodMillis(Duration.ofMinutes(5), Duration.ofSeconds(30), Duration.ofSeconds(5)),
                "the transfer timeout, 5 s by default, is the shortest");
        assertEquals(10, IdleWatch.periodMillis(Duration.ofMinutes(5), Duration.ofMillis(1), Duration.ofSeconds(5)));
        assertEquals(10_000, IdleWatch.periodMillis(Duration.ofHours(1), Duration.ofHours(1), Duration.ofHours(1)));
    }

    @Test
    void aBasePlusASecondPerMebibyte() {
        TransferDeadline d = new TransferDeadline(Duration.ofSeconds(5));
        assertEquals(5_000, d.millisFor(0));
        assertEquals(5_000 + 62, d.millisFor(64 << 10));
        assertEquals(5_000 + 16_000, d.millisFor(16 << 20), "16 MiB: 21 s, below the 30 s of the old timeout");
        assertThrows(IllegalArgumentException.class, () -> new TransferDeadline(Duration.ZERO));
    }
}
