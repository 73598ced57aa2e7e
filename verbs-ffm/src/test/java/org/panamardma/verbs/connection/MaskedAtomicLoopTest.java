package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.extensions.MaskedAtomics;

/**
 * The asynchronous masked-atomic loop over a plain CmpSwap, against a remote word simulated in memory: each CmpSwap
 * is answered when the test says (as a device's completion would be, on the poller thread), so the races the loop
 * must survive and the failures it must report are played in a fixed order, with no timing.
 */
class MaskedAtomicLoopTest {
    private static final long ADDRESS = 0x1000;
    private static final int RKEY = 7;

    /** A remote word and the CmpSwaps posted to it, answered one at a time by {@link #answer()}. */
    private static final class RemoteWord implements MaskedAtomicLoop.CompareSwap {
        long word;
        int posted;
        RuntimeException throwOnPost; // thrown by the post numbered throwAt (1 = the first)
        int throwAt;
        private final Queue<Runnable> inFlight = new ArrayDeque<>();

        @Override
        public CompletableFuture<Long> compareSwap(long address, int rkey, long compare, long swap) {
            assertEquals(ADDRESS, address);
            assertEquals(RKEY, rkey);
            if (++posted == throwAt) {
                throw throwOnPost;
            }
            CompletableFuture<Long> f = new CompletableFuture<>();
            inFlight.add(() -> {
                long previous = word;
                if (previous == compare) {
                    word = swap;
                }
                f.complete(previous);
            });
            return f;
        }

        /** The device executes and completes the oldest CmpSwap posted. */
        void answer() {
            inFlight.remove().run();
        }

        boolean idle() {
            return inFlight.isEmpty();
        }
    }

    @Test
    void aFieldwiseAddRetriesAfterALostRaceAndReplacesTheWordItLastRead() throws Exception {
        RemoteWord remote = new RemoteWord();
        remote.word = 0x0000_0001_0000_00FFL;
        long add = 0x0000_0001_0000_0001L;
        long addMask = 0x8000_0000_8000_0000L; // two 32-bit fields, no carry from the low one into the high one
        CompletableFuture<Long> result = MaskedAtomicLoop.fetchAdd(remote, ADDRESS, RKEY, add, addMask);
        remote.answer(); // the atomic read (CmpSwap 0 -> f(0)) finds the word non-zero: it changes nothing
        remote.word = 0x0000_0002_FFFF_FFFFL; // another requester changes it before the loop's next CmpSwap
        remote.answer(); // which expected the value read first: lost, it found the new one
        remote.answer(); // expected the new one: swapped
        assertTrue(remote.idle(), "three CmpSwaps: the read, the lost race, the swap");
        assertEquals(0x0000_0002_FFFF_FFFFL, result.get(), "the result is the value replaced");
        assertEquals(MaskedAtomics.fieldwiseAdd(0x0000_0002_FFFF_FFFFL, add, addMask), remote.word);
        assertEquals(0x0000_0003_0000_0000L, remote.word, "the low field wrapped without carrying into the high");
    }

    @Test
    void aMaskedCompareThatFailsLeavesTheWordAsFoundAndReportsIt() throws Exception {
        RemoteWord remote = new RemoteWord();
        remote.word = 0xAAAA_0000_0000_5555L;
        CompletableFuture<Long> result = MaskedAtomicLoop.compareSwap(
                remote, ADDRESS, RKEY, 0x1111_0000_0000_0000L, 0xFFFF_0000_0000_0000L, -1L, 0xFFFFL);
        remote.answer(); // read
        remote.answer(); // CmpSwap of the word with itself: confirms it
        assertTrue(remote.idle());
        assertEquals(0xAAAA_0000_0000_5555L, result.get());
        assertEquals(0xAAAA_0000_0000_5555L, remote.word);
    }

    @Test
    void aFailedCmpSwapFailsTheResultWithItsCause() {
        RuntimeException lost = new IllegalStateException("connection lost");
        CompletableFuture<Long> read = new CompletableFuture<>();
        CompletableFuture<Long> result = MaskedAtomicLoop.fetchAdd((a, k, c, s) -> read, ADDRESS, RKEY, 1, 0);
        read.completeExceptionally(lost); // as a flushed work request's completion fails
        ExecutionException e = assertThrows(ExecutionException.class, result::get);
        assertSame(lost, e.getCause());
    }

    /**
     * The fix of f44fe1e: a later attempt is posted from the previous CmpSwap's completion callback, where an
     * exception thrown by the post went into the future {@code whenComplete} returned, which nobody reads: the
     * masked atomic's future then never completed. Fails on the code before it (result still pending).
     */
    @Test
    void aPostThatThrowsInALaterAttemptFailsTheResultInsteadOfLeavingItPending() {
        RemoteWord remote = new RemoteWord();
        remote.word = 42; // the atomic read finds 42, so a second CmpSwap (expecting 42) follows
        remote.throwAt = 2;
        remote.throwOnPost = new IllegalStateException("the connection is closing");
        CompletableFuture<Long> result = MaskedAtomicLoop.fetchAdd(remote, ADDRESS, RKEY, 1, 0);
        assertTrue(!result.isDone());
        remote.answer(); // its callback posts the second attempt, which throws
        assertTrue(result.isDone(), "the loop's future is settled by the failed post, not left pending for ever");
        ExecutionException e = assertThrows(ExecutionException.class, result::get);
        assertSame(remote.throwOnPost, e.getCause());
        assertEquals(42, remote.word, "nothing changed");
    }

    @Test
    void aPostThatThrowsInTheFirstAttemptIsReportedThroughTheFuture() {
        RemoteWord remote = new RemoteWord();
        remote.throwAt = 1;
        remote.throwOnPost = new IllegalStateException("refused");
        CompletableFuture<Long> result = MaskedAtomicLoop.compareSwap(remote, ADDRESS, RKEY, 0, -1L, 1, -1L);
        ExecutionException e = assertThrows(ExecutionException.class, result::get);
        assertSame(remote.throwOnPost, e.getCause());
    }
}
