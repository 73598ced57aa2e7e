package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The data path allocates nothing (docs/architecture.md, "The data path allocates nothing": posting a send, posting
 * a receive and polling allocate no Java object per operation), checked rather than reported: for every send
 * operation on both send paths, a million post+poll rounds through the stub provider's device (a completion at once
 * for every request), and the bytes this thread allocated meanwhile
 * ({@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}) must stay within
 * {@value #HARNESS_BOUND} bytes, the harness's own bound. One object on the data path every thousand rounds would
 * be 16 kB.
 *
 * <p>After a warm-up of every operation on both paths and then of {@value #WARMUP} rounds of the one measured: the
 * first call at each {@code invokeExact} call site links its method handle (lambda forms spun and loaded once per JVM,
 * allocated on the calling thread: seen with JFR's allocation events and -XX:-UseTLAB, all under
 * java.lang.invoke and the class-file API, and enum class initialisers), and the first rounds run before the JIT
 * compiles the path. What the warm-up allocated is printed, not judged: an allocation the compiled code keeps making
 * shows in the measured million; one that only C2's escape analysis removes shows in the warm-up figure.
 *
 * <p>Runs in the surefire execution {@code stub-provider} (a JVM of its own: the stub must be loaded before the real
 * libibverbs); skipped, or failed where required (CI), without gcc or the rdma-core 56 header set.
 */
class StubDataPathAllocationTest extends StubLoopbackFixture {
    static final int ROUNDS = 1_000_000;
    static final int WARMUP = 200_000;
    /**
     * What the harness may allocate inside the measured span: the two reads of the counter and the loop allocate
     * nothing themselves (measured: 0 B), so this only leaves room for the JVM charging this thread a few bytes of its
     * own (e.g. a deoptimization's frame state), far below one object per thousand rounds.
     */
    static final long HARNESS_BOUND = 512;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static WorkCompletions wc;

    @BeforeAll
    static void open() throws Exception {
        wc = WorkCompletions.allocate(16);
        // every call site once on every path, before any is measured: each links its method handles on first use
        // (one-time allocation on this thread), and the JIT compiles the shared code with all operations profiled
        for (StubOperation op : StubOperation.values()) {
            rounds(extended, op, WARMUP / 4);
            rounds(workRequests, op, WARMUP / 4);
            if (op.onLegacyPath()) {
                rounds(legacy, op, WARMUP / 4);
            }
        }
    }

    @AfterAll
    static void close() {
        if (wc != null) {
            wc.close();
        }
    }

    @Test
    void theHarnessAloneAllocatesNothing() {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        long after = THREADS.getCurrentThreadAllocatedBytes();
        assertEquals(0, after - before, "reading the counter allocates: the bound would have to account for it");
        assertTrue(THREADS.isThreadAllocatedMemorySupported() && THREADS.isThreadAllocatedMemoryEnabled());
    }

    @TestFactory
    Stream<DynamicTest> aMillionPostsAndPollsAllocateNothing() {
        List<DynamicTest> tests = new ArrayList<>();
        for (StubOperation op : StubOperation.values()) {
            tests.add(DynamicTest.dynamicTest(
                    op + " extended (ibv_post_send or ibv_wr_*, ibv_poll_cq)", () -> check(extended, op)));
            tests.add(DynamicTest.dynamicTest(
                    op + " work requests (ibv_wr_*, ibv_start_poll)", () -> check(workRequests, op)));
            if (op.onLegacyPath()) {
                tests.add(
                        DynamicTest.dynamicTest(op + " legacy (ibv_post_send, ibv_poll_cq)", () -> check(legacy, op)));
            }
        }
        return tests.stream();
    }

    private static void check(StubLoopback l, StubOperation op) throws RdmaException {
        long w0 = THREADS.getCurrentThreadAllocatedBytes();
        rounds(l, op, WARMUP);
        long before = THREADS.getCurrentThreadAllocatedBytes();
        rounds(l, op, ROUNDS);
        long after = THREADS.getCurrentThreadAllocatedBytes();
        long allocated = after - before;
        System.out.printf(
                "[allocation] %s on the %s path: %d B over %,d post+poll rounds (warm-up: %d B over %,d)%n",
                op, l.path, allocated, ROUNDS, before - w0, WARMUP);
        assertTrue(
                allocated <= HARNESS_BOUND,
                op + " allocated " + allocated + " bytes over " + ROUNDS
                        + " post+poll rounds (" + (double) allocated / ROUNDS + " B per round; the harness may take "
                        + HARNESS_BOUND + ")");
    }

    /** Posts and polls {@code n} times, checking each completion without allocating (a failure throws). */
    private static void rounds(StubLoopback l, StubOperation op, int n) throws RdmaException {
        for (int i = 0; i < n; i++) {
            op.post(l, i);
            if (l.cq.poll(wc) != 1 || wc.wrId(0) != i || !wc.isSuccess(0)) {
                throw new AssertionError(op + ": round " + i + " polled " + wc.count() + " completions, not its own");
            }
        }
    }
}
