package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The deadline of a chunk's RDMA Reads and Writes (issue 25 item 5): at 5c5f9a1 a transfer the peer never completed
 * was waited for the connection's 30 s timeout, its memory held all that time.
 */
class TransferDeadlineTest {
    @Test
    void aTransferThatNeverCompletesFailsTheCallAtItsDeadline() {
        CompletableFuture<Void> never = new CompletableFuture<>();
        CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
        long t0 = System.nanoTime();
        IOException e = assertThrows(
                IOException.class, () -> VerbsChunkTransfers.await(List.of(done, never), "RDMA Read", 200));
        long waited = (System.nanoTime() - t0) / 1_000_000;
        assertInstanceOf(
                TimeoutException.class,
                e.getCause(),
                "what ServerConnection counts as a transfer timeout and closes the connection for");
        assertTrue(waited >= 200, "waited " + waited + " ms");
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
