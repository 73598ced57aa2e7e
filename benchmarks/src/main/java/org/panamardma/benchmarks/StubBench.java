package org.panamardma.benchmarks;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.StubLoopback;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.ffi.ibv_wc;

/**
 * The fixture every stub-provider benchmark sets up alike ({@link BindingCostBenchmark}, {@link MessageRateBenchmark},
 * {@link ReplyChainBenchmark}): the stub's loopback QP and CQ on one path ({@link StubLoopback}), the
 * {@link WorkCompletions} Java polls into and the {@code ibv_wc} array C polls into, both of
 * {@value #POLL_CAPACITY} completions. Opening it is the first thing a benchmark fork does: the stub must become
 * libibverbs before anything loads the real one.
 */
final class StubBench implements AutoCloseable {
    /** Completions a poll may return (as the README's example and the allocation test). */
    static final int POLL_CAPACITY = 16;
    /** Send queue depth of the loopback QP. */
    private static final int QUEUE_DEPTH = 64;

    final StubLoopback loop;
    final WorkCompletions wc;
    /** C's completions: {@value #POLL_CAPACITY} {@code struct ibv_wc}. */
    final MemorySegment cWc;

    private final Arena arena;

    private StubBench(StubLoopback loop, WorkCompletions wc, Arena arena) {
        this.loop = loop;
        this.wc = wc;
        this.arena = arena;
        this.cWc = arena.allocate(ibv_wc.layout().byteSize() * POLL_CAPACITY, 8);
    }

    /** The loopback on the path named {@code ext}, {@code legacy} or {@code wr}. */
    static StubBench open(String pathName) throws Exception {
        StubLoopback loop = StubLoopback.open(path(pathName), QUEUE_DEPTH);
        return new StubBench(loop, WorkCompletions.allocate(POLL_CAPACITY), Arena.ofConfined());
    }

    /** stub_bench.c's {@code enum stub_bench_path} of this loopback. */
    int cPath() {
        return loop.path.ordinal();
    }

    /**
     * Polls once, expecting exactly one completion (the stub completes at once); returns its wr_id. {@code posted}
     * (the request or round just posted) only names it in the error: a number, so that the hot path builds no string.
     */
    long pollOne(long posted) throws RdmaException {
        if (loop.cq.poll(wc) != 1) {
            throw new IllegalStateException("no completion after posting " + posted);
        }
        return wc.wrId(0);
    }

    @Override
    public void close() {
        wc.close();
        loop.close();
        arena.close();
    }

    /** The path named in a request: {@code ext}, {@code legacy} or {@code wr}. */
    static StubLoopback.Path path(String name) {
        return switch (name) {
            case "ext" -> StubLoopback.Path.EXTENDED;
            case "legacy" -> StubLoopback.Path.LEGACY;
            case "wr" -> StubLoopback.Path.WORK_REQUESTS;
            default -> throw new IllegalArgumentException("no path " + name + " (ext, legacy, wr)");
        };
    }
}
