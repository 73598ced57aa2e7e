package org.panamardma.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

/**
 * What an RDMA WRITE's completion at the writer does not say on iWARP: that the target's memory has the bytes. RFC
 * 5040 section 5.5 (RDMAP ordering and completions) promises the Data Source's completion only that its buffer may be
 * used again; Soft-iWARP completes a WRITE once TCP took its bytes (siw_qp_tx.c), and the peer places them when its
 * receive path gets to the segment, which a loaded host defers. A test that looks at the target right after the
 * writer's completion fails there now and then (seen in CI, 2026-11-28); on InfiniBand and RoCE the responder's ACK
 * comes after placement and the first look succeeds. What does order placement for the peer is a message after the
 * WRITE on the same connection: the peer's SEND or RDMA READ is processed after the WRITE before it was placed.
 */
public final class Placement {
    /** Long enough for a deferred receive path on an emulated guest; only a failure waits it out. */
    public static final Duration WITHIN = Duration.ofSeconds(30);

    private Placement() {}

    /**
     * Waits, at most {@link #WITHIN}, for {@code target} to hold {@code expected} at its start; fails with the usual
     * array comparison if it never does.
     *
     * @param expected the bytes written
     * @param target   where the peer's memory receives them
     * @param what     what the assertion message names
     */
    public static void assertPlaced(byte[] expected, MemorySegment target, String what) {
        MemorySegment want = MemorySegment.ofArray(expected);
        MemorySegment at = target.asSlice(0, expected.length);
        long start = System.nanoTime();
        long deadline = start + WITHIN.toNanos();
        while (at.mismatch(want) != -1 && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        assertArrayEquals(
                expected,
                at.toArray(ValueLayout.JAVA_BYTE),
                what + " (looked at for " + (System.nanoTime() - start) / 1_000_000 + " ms)");
    }
}
