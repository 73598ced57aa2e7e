package org.panamardma.verbs.connection.agent;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.extensions.Rfc7306;

/**
 * The agent's execution against RFC 7306's pseudo-code ({@link Rfc7306}, transcribed bit by bit), and its atomicity
 * against concurrent agents and the responder's own CPU using atomic access.
 */
class AtomicOpsTest {
    /** Random words with the structure that matters: runs of ones and zeros, single bits, the extremes. */
    // IdentityBinaryExpression: r.nextLong() & r.nextLong() is two draws, not one value twice
    @SuppressWarnings("IdentityBinaryExpression")
    static long word(SplittableRandom r) {
        return switch (r.nextInt(6)) {
            case 0 -> r.nextLong();
            case 1 -> -1L << r.nextInt(64);
            case 2 -> 1L << r.nextInt(64);
            case 3 -> r.nextBoolean() ? 0L : -1L;
            case 4 -> r.nextLong() & r.nextLong() & r.nextLong(); // sparse
            default -> r.nextLong() | r.nextLong() | r.nextLong(); // dense
        };
    }

    @Test
    void everyOperationMatchesRfc7306PseudoCodeOnAMillionVectors() {
        SplittableRandom random = new SplittableRandom(7306);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(64, 8);
            int mismatches = 0;
            for (int i = 0; i < 1_000_000; i++) {
                long original = word(random);
                long a = word(random);
                long b = word(random);
                long c = word(random);
                long d = word(random);
                boolean add = random.nextBoolean();
                AtomicRequest r =
                        add ? AtomicRequest.fetchAdd(0, 1, 0, a, b) : AtomicRequest.compareSwap(0, 1, 0, c, d, a, b);
                long offset = 8L * random.nextInt(8);
                memory.set(JAVA_LONG, offset, original);
                long returned = AtomicOps.execute(memory, offset, r);
                long expected = add
                        ? Rfc7306.maskedFetchAddResult(original, a, b)
                        : Rfc7306.maskedCompareSwapResult(original, c, d, a, b);
                if (returned != original || memory.get(JAVA_LONG, offset) != expected) {
                    mismatches++;
                }
            }
            assertEquals(0, mismatches);
        }
    }

    @Test
    void plainFormsTakeTheirOneInstructionPathAndAgreeWithTheModel() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(8, 8);
            m.set(JAVA_LONG, 0, Long.MAX_VALUE);
            assertEquals(Long.MAX_VALUE, AtomicOps.execute(m, 0, AtomicRequest.fetchAdd(0, 1, 0, 1, 0)));
            assertEquals(Long.MIN_VALUE, m.get(JAVA_LONG, 0)); // wraps as RFC 7306's 64-bit sum does
            assertEquals(Long.MIN_VALUE, AtomicOps.execute(m, 0, AtomicRequest.compareSwap(0, 1, 0, 5, -1, 6, -1)));
            assertEquals(Long.MIN_VALUE, m.get(JAVA_LONG, 0)); // compare failed: untouched
            assertEquals(
                    Long.MIN_VALUE,
                    AtomicOps.execute(m, 0, AtomicRequest.compareSwap(0, 1, 0, Long.MIN_VALUE, -1, 6, -1)));
            assertEquals(6, m.get(JAVA_LONG, 0));
        }
    }

    /**
     * Four agents (threads) and the responder's CPU update one word at once: agents with plain and masked FetchAdd
     * on the low field, the CPU with VarHandle getAndAdd on the high field. No update is lost: the agent's atomicity
     * holds against the CPU's atomic access too (stronger than IBV_ATOMIC_HCA).
     */
    @Test
    void atomicAmongAgentsAndAgainstTheCpusAtomicAccess() throws Exception {
        int threads = 4;
        int perThread = 200_000;
        VarHandle word = JAVA_LONG.varHandle();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment m = arena.allocate(8, 8);
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> all = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                boolean masked = t % 2 == 1;
                all.add(Thread.ofPlatform().start(() -> {
                    await(start);
                    // masked: two 32-bit fields (bit 31 and bit 63 end them): a carry never reaches the high field
                    AtomicRequest inc = AtomicRequest.fetchAdd(0, 1, 0, 1, masked ? 0x8000000080000000L : 0);
                    for (int i = 0; i < perThread; i++) {
                        AtomicOps.execute(m, 0, inc);
                    }
                }));
            }
            Thread cpu = Thread.ofPlatform().start(() -> {
                await(start);
                for (int i = 0; i < perThread; i++) {
                    word.getAndAdd(m, 0L, 1L << 32);
                }
            });
            start.countDown();
            for (Thread t : all) {
                t.join();
            }
            cpu.join();
            long v = m.get(JAVA_LONG, 0);
            assertEquals((long) threads * perThread, v & 0xffff_ffffL, "agent increments");
            assertEquals(perThread, v >>> 32, "CPU increments");
        }
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aMaskedOperationThatChangesNothingStillReturnsTheOriginal() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(8, 8);
            m.set(JAVA_LONG, 0, 0x1234);
            assertEquals(0x1234, AtomicOps.execute(m, 0, AtomicRequest.fetchAdd(0, 1, 0, 0, 0x8000000000000000L)));
            assertEquals(0x1234, AtomicOps.execute(m, 0, AtomicRequest.compareSwap(0, 1, 0, 0, 0xff, 7, 0xff)));
            assertEquals(0x1234, m.get(JAVA_LONG, 0));
        }
    }
}
