package org.panamardma.verbs.extensions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.RdmaException;

/** The masked atomics against RFC 7306 section 5.1's pseudo-code, and the CAS loop under contention. */
class MaskedAtomicsTest {
    private static final long[] EDGE = {
        0L,
        1L,
        -1L,
        Long.MIN_VALUE,
        Long.MAX_VALUE,
        0x8000_0000_8000_0000L,
        0x8080_8080_8080_8080L,
        0x0101_0101_0101_0101L,
        0xFFFF_0000_FFFF_0000L,
        0x5555_5555_5555_5555L
    };

    /** A word in local memory, as the loop sees a remote one; counts the CmpSwaps. */
    static final class LocalWord implements RemoteWord {
        final AtomicLong value;
        final AtomicInteger casCount = new AtomicInteger();

        LocalWord(long initial) {
            value = new AtomicLong(initial);
        }

        @Override
        public long compareSwap(long expected, long desired) {
            casCount.incrementAndGet();
            return value.compareAndExchange(expected, desired);
        }
    }

    /** The former spelling stays for callers until it is removed, and does what compareSwap does. */
    @Test
    @SuppressWarnings("removal")
    void deprecatedCompareAndSwapIsCompareSwap() throws RdmaException {
        LocalWord word = new LocalWord(5);
        assertEquals(5, word.compareAndSwap(4, 9), "no swap: the word was not 4");
        assertEquals(5, word.value.get());
        assertEquals(5, word.compareAndSwap(5, 9), "swapped");
        assertEquals(9, word.value.get());
        assertEquals(2, word.casCount.get(), "both went through compareSwap");
    }

    @Test
    void fieldwiseAddMatchesThePseudoCodeOnRandomAndEdgeInputs() {
        Random random = new Random(7306);
        List<long[]> cases = new ArrayList<>();
        for (long a : EDGE) {
            for (long b : EDGE) {
                for (long m : EDGE) {
                    cases.add(new long[] {a, b, m});
                }
            }
        }
        for (int i = 0; i < 200_000; i++) {
            // random masks, and sparse ones (a few field boundaries) which are the realistic kind
            long mask = (i & 1) == 0 ? random.nextLong() : sparse(random);
            cases.add(new long[] {random.nextLong(), random.nextLong(), mask});
        }
        for (long[] c : cases) {
            assertEquals(
                    Rfc7306.maskedFetchAddResult(c[0], c[1], c[2]),
                    MaskedAtomics.fieldwiseAdd(c[0], c[1], c[2]),
                    () -> String.format("orig %016x add %016x mask %016x", c[0], c[1], c[2]));
        }
    }

    @Test
    void knownFieldwiseAdditions() {
        // two 32-bit counters: mask marks bit 31 and bit 63; the low counter wraps without touching the high one
        long mask = 0x8000_0000_8000_0000L;
        assertEquals(
                0x0000_0002_0000_0000L,
                MaskedAtomics.fieldwiseAdd(0x0000_0001_FFFF_FFFFL, 0x0000_0001_0000_0001L, mask));
        // zero mask: plain 64-bit add
        assertEquals(5L, MaskedAtomics.fieldwiseAdd(2L, 3L, 0L));
        // eight byte-wide counters each +1, 0xff wraps to 0 in its own byte
        assertEquals(
                0x0102_0304_0506_0700L,
                MaskedAtomics.fieldwiseAdd(0x0001_0203_0405_06FFL, 0x0101_0101_0101_0101L, 0x8080_8080_8080_8080L));
    }

    @Test
    void maskedSwapMatchesThePseudoCode() {
        Random random = new Random(5102);
        for (int i = 0; i < 200_000; i++) {
            long orig = random.nextLong();
            long cmpMask = random.nextLong();
            cmpMask &= random.nextLong();
            // half the cases compare equal under the mask
            long compare = (i & 1) == 0 ? (orig & cmpMask) | (random.nextLong() & ~cmpMask) : random.nextLong();
            long swap = random.nextLong();
            long swapMask = random.nextLong();
            assertEquals(
                    Rfc7306.maskedCompareSwapResult(orig, compare, cmpMask, swap, swapMask),
                    MaskedAtomics.maskedSwap(orig, compare, cmpMask, swap, swapMask));
        }
    }

    @Test
    void casLoopReturnsTheOriginalAndAppliesTheOperationOnce() throws RdmaException {
        LocalWord word = new LocalWord(0x0000_0005_0000_00FFL);
        long original = MaskedAtomics.fetchAdd(word, 0x0000_0001_0000_0001L, 0x8000_0000_8000_0000L);
        assertEquals(0x0000_0005_0000_00FFL, original);
        assertEquals(0x0000_0006_0000_0100L, word.value.get());
        assertEquals(2, word.casCount.get(), "a wrong guess costs one extra CmpSwap, no more");

        // a failed masked compare leaves the word alone and still returns the original
        long before = word.value.get();
        long seen = MaskedAtomics.compareSwap(word, 0xDEADL, 0xFFFFL, -1L, -1L, before);
        assertEquals(before, seen);
        assertEquals(before, word.value.get());
        // a matching one swaps only the masked bits
        MaskedAtomics.compareSwap(word, 0x0100L, 0xFFFFL, 0xABCD_0000_0000_0000L, 0xFFFF_0000_0000_0000L, before);
        assertEquals(0xABCD_0006_0000_0100L, word.value.get());
    }

    @Test
    void racingThreadsLoseNoUpdateAndSeeEachOriginalOnce() throws Exception {
        long mask = 0x8000_0000_8000_0000L; // two 32-bit counters
        long add = 0x0000_0003_0000_0001L;
        int threads = 4;
        int perThread = 5_000;
        LocalWord word = new LocalWord(0);
        ConcurrentLinkedQueue<Long> originals = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < perThread; i++) {
                        originals.add(MaskedAtomics.fetchAdd(word, add, mask));
                    }
                } catch (RdmaException e) {
                    throw new AssertionError(e);
                }
            }));
        }
        for (Thread w : workers) {
            w.join();
        }
        int n = threads * perThread;
        long expected = 0;
        Set<Long> chain = new HashSet<>();
        for (int i = 0; i < n; i++) {
            chain.add(expected);
            expected = MaskedAtomics.fieldwiseAdd(expected, add, mask);
        }
        assertEquals(expected, word.value.get(), "every one of the " + n + " adds applied exactly once");
        assertEquals(n, new HashSet<>(originals).size(), "each original returned once");
        assertEquals(chain, new HashSet<>(originals), "the originals are exactly the successive values");
        assertTrue(word.casCount.get() >= n, "at least one CmpSwap per operation");
        List<Long> sorted = new ArrayList<>(originals);
        Collections.sort(sorted);
        assertEquals(n, sorted.size());
    }

    /** Three draws and-ed: a mask with few bits set. */
    private static long sparse(Random random) {
        long mask = random.nextLong();
        mask &= random.nextLong();
        return mask & random.nextLong();
    }
}
