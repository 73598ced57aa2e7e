package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The deadline of a chunk's RDMA Reads and Writes (issue 25 item 5): at 5c5f9a1 a transfer the peer never completed
 * was waited for the connection's 30 s timeout, its memory held all that time.
 */
class TransferDeadlineTest {
    @Test
    void aTransferThatNeverCompletesFailsTheCallAtItsDeadline() {
        java.util.concurrent.CompletableFuture<Void> never = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletableFuture<Void> done = java.util.concurrent.CompletableFuture.completedFuture(null);
        long t0 = System.nanoTime();
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> VerbsChunkTransfers.await(
                java.util.List.of(done, never), "RDMA Read", 200));
        long waited = (System.nanoTime() - t0) / 1_000_000;
        org.junit.jupiter.api.Assertions.assertInstanceOf(java.util.concurrent.TimeoutException.class, e.getCause(),
                "what ServerConnection counts as a transfer timeout and closes the connection for");
        org.junit.jupiter.api.Assertions.assertTrue(waited >= 200, "waited " + waited + " ms");
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
