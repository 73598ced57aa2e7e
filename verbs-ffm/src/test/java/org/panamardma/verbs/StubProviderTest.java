package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.panamardma.verbs.ffi.StubProvider;
import org.panamardma.verbs.ffi.ibv_wc;

/**
 * The stub provider (native-headers/stub, {@link StubProvider}) is what the binding-cost benchmark and the allocation
 * test measure against, so it is checked first: the library takes it for a libibverbs of rdma-core 56 with a device
 * that has everything, both send paths post every operation on it and each completes at once with its wr_id and
 * opcode, and the C loop of the benchmark posts and polls on the same QPs. Runs in the surefire execution
 * {@code stub-provider} (a JVM of its own: the stub must be loaded before the real libibverbs).
 */
class StubProviderTest extends StubLoopbackFixture {

    @Test
    void theLibraryTakesTheStubForRdmaCore56WithEveryCapability() throws Exception {
        RdmaCore.Version v = RdmaCore.version();
        assertEquals(new RdmaCore.Version(56, 1, true), v, RdmaCore.describe());
        assertEquals(StubProvider.file().toRealPath(), RdmaCore.ibverbsFile().orElseThrow(), RdmaCore.describe());
        assertTrue(RdmaCore.Feature.FLUSH.isAvailable());
        DeviceAttributes a = extended.context.attributes();
        assertTrue(a.supportsAtomics() && a.supportsFlushGlobal() && a.supportsAtomicWrite(), a.toString());
        assertTrue(extended.qp.supportsFlush() && extended.qp.supportsAtomicWrite() && extended.qp.supportsAtomics());
        assertFalse(legacy.qp.supportsFlush());
        assertEquals(QpState.RTS, extended.qp.state());
    }

    @TestFactory
    Stream<DynamicTest> everyOperationCompletesAtOnceWithItsIdAndOpcode() {
        List<DynamicTest> tests = new ArrayList<>();
        for (StubOperation op : StubOperation.values()) {
            tests.add(DynamicTest.dynamicTest(op + " extended", () -> postAndPoll(extended, op)));
            tests.add(DynamicTest.dynamicTest(op + " work requests", () -> postAndPoll(workRequests, op)));
            if (op.onLegacyPath()) {
                tests.add(DynamicTest.dynamicTest(op + " legacy", () -> postAndPoll(legacy, op)));
            }
        }
        return tests.stream();
    }

    /**
     * Issue 26: on an extended QP and CQ the library makes one call per request and one per poll, as a C program
     * would: ibv_post_send for everything but FLUSH and ATOMIC WRITE, ibv_poll_cq on the extended CQ (the stub,
     * like rxe and mlx5, serves it). Counted by the stub. On 5c5f9a1 a WRITE there took ibv_wr_start, the builder,
     * ibv_wr_set_sge and ibv_wr_complete, and its poll ibv_start_poll, five ibv_wc_read_* and ibv_end_poll.
     */
    @Test
    void anExtendedQueuePairPostsWithPostSendAndItsCqIsPolledWithPollCq() throws Exception {
        try (WorkCompletions wc = WorkCompletions.allocate(4)) {
            long[] before = StubProvider.callCounts();
            StubOperation.WRITE.post(extended, 1);
            assertEquals(1, extended.cq.poll(wc));
            long[] write = StubProvider.callCounts();
            StubOperation.FLUSH.post(extended, 2);
            assertEquals(1, extended.cq.poll(wc));
            long[] flush = StubProvider.callCounts();
            assertEquals(List.of(1L, 0L, 1L, 0L), delta(before, write), "post_send, wr_start, poll_cq, start_poll");
            assertEquals(List.of(0L, 1L, 1L, 0L), delta(write, flush), "post_send, wr_start, poll_cq, start_poll");
            StubOperation.WRITE.post(workRequests, 3);
            assertEquals(1, workRequests.cq.poll(wc));
            assertEquals(
                    List.of(0L, 1L, 0L, 1L),
                    delta(flush, StubProvider.callCounts()),
                    "the work-request path, for tests and the benchmark: post_send, wr_start, poll_cq, start_poll");
        }
    }

    private static List<Long> delta(long[] from, long[] to) {
        List<Long> d = new ArrayList<>();
        for (int i = 0; i < from.length; i++) {
            d.add(to[i] - from[i]);
        }
        return d;
    }

    private static void postAndPoll(StubLoopback l, StubOperation op) throws RdmaException {
        try (WorkCompletions wc = WorkCompletions.allocate(4)) {
            assertEquals(0, l.cq.poll(wc), "nothing before the post");
            op.post(l, 1234);
            assertEquals(1, l.cq.poll(wc));
            wc.check(0);
            assertEquals(1234, wc.wrId(0));
            assertEquals(op.completion(), wc.opcode(0));
            assertEquals(l.qp.qpNumber(), wc.qpNumber(0));
            assertEquals(0, l.cq.poll(wc), "one completion per signaled request");
        }
    }

    @Test
    void anUnsignaledRequestMakesNoCompletion() throws RdmaException {
        try (WorkCompletions wc = WorkCompletions.allocate(4)) {
            extended.qp.postWrite(
                    1, extended.local, 0, 8, extended.remote.address(), extended.remote.rkey(), SendFlags.NONE);
            legacy.qp.postWrite(1, legacy.local, 0, 8, legacy.remote.address(), legacy.remote.rkey(), SendFlags.NONE);
            assertEquals(0, extended.cq.poll(wc));
            assertEquals(0, legacy.cq.poll(wc));
        }
    }

    @Test
    void aFullCompletionQueueRefusesThePost() throws Exception {
        try (StubLoopback small = StubLoopback.open(true, 4);
                WorkCompletions wc = WorkCompletions.allocate(8)) {
            int capacity = small.cq.capacity();
            for (int i = 0; i < capacity; i++) {
                StubOperation.SEND.post(small, i);
            }
            RdmaException full = assertThrows(RdmaException.class, () -> StubOperation.SEND.post(small, 99));
            assertTrue(full.getMessage().contains("queue is full"), full.getMessage());
            assertEquals(capacity, small.cq.poll(wc));
        }
    }

    @TestFactory
    Stream<DynamicTest> theCLoopPostsAndPollsOnTheSameQueuePair() throws Exception {
        MethodHandle loop = StubProvider.benchPostPoll();
        List<DynamicTest> tests = new ArrayList<>();
        for (StubOperation op : StubOperation.values()) {
            if (op.cOp() < 0) {
                continue;
            }
            tests.add(DynamicTest.dynamicTest(op + " extended", () -> cLoop(loop, extended, op)));
            tests.add(DynamicTest.dynamicTest(op + " work requests", () -> cLoop(loop, workRequests, op)));
            if (op.onLegacyPath()) {
                tests.add(DynamicTest.dynamicTest(op + " legacy", () -> cLoop(loop, legacy, op)));
            }
        }
        return tests.stream();
    }

    private static void cLoop(MethodHandle loop, StubLoopback l, StubOperation op) throws Throwable {
        try (Arena arena = Arena.ofConfined();
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            MemorySegment cWc = arena.allocate(ibv_wc.layout().byteSize() * 16, 8);
            long n = 1000;
            long sum = (long) loop.invokeExact(
                    l.qp.qpNumber(),
                    l.path.ordinal(),
                    op.cOp(),
                    l.local.lkey(),
                    l.local.address(),
                    StubLoopback.LENGTH,
                    l.remote.address(),
                    l.remote.rkey(),
                    cWc,
                    16,
                    n);
            assertEquals(n * (n + 1) / 2, sum, "the sum of wr_ids 1.." + n + " (negative: -errno)");
            assertEquals(0, l.cq.poll(wc), "the C loop polled every completion it made");
            // the other path is refused by the C loop: it must measure the path it is asked for
            int other = l.path == StubLoopback.Path.LEGACY ? 1 : 0;
            long wrong = (long) loop.invokeExact(
                    l.qp.qpNumber(),
                    other,
                    op.cOp(),
                    l.local.lkey(),
                    l.local.address(),
                    StubLoopback.LENGTH,
                    l.remote.address(),
                    l.remote.rkey(),
                    cWc,
                    16,
                    1L);
            assertEquals(-Errno.EINVAL, wrong);
        }
    }
}
