package org.panamardma.benchmarks;

import java.lang.invoke.MethodHandle;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.StubLoopback;
import org.panamardma.verbs.ffi.StubProvider;

/**
 * Message rate on one QP (issue 26): 1-byte RDMA WRITEs posted in batches of {@link #batch}, each its own post, only
 * the last of a batch signaled (selective signaling, as message-rate tests do: perftest's {@code cq_mod}), and the
 * poll of that completion; by Java through QueuePair and CompletionQueue and by C through the same function pointers
 * on the same QP (stub_bench.c's {@code stub_bench_message_rate}). The device is the stub provider, which completes a
 * request at once: what is measured is the host CPU's cost per WRITE on each side, whose inverse is the rate one
 * thread can post at. {@value #WRITES} WRITEs per benchmark call, so the result is ns per WRITE for every batch.
 *
 * <p>{@link #path}: {@code ext}, an extended QP and CQ as the library uses them (rxe, mlx5: ibv_post_send,
 * ibv_poll_cq), or {@code legacy}, a plain QP and CQ (siw). Run by {@code benchmarks/binding-cost.sh}, which prints
 * the rates and Java / C beside the target (at least 0.9).
 */
public class MessageRateBenchmark extends StubBenchmarkSettings {
    /** WRITEs per benchmark call: a multiple of every batch. */
    static final int WRITES = 1600;

    @Param({"1", "16"})
    public int batch;

    @Param({"ext", "legacy"})
    public String path;

    private static MethodHandle cLoop;

    private StubBench bench;
    private QueuePair qp;
    private MemoryRegion local;
    private long remoteAddress;
    private int rkey;
    private int rounds;

    @Setup(Level.Trial)
    public void open() throws Throwable {
        if (batch < 1 || WRITES % batch != 0) {
            throw new IllegalArgumentException("batch " + batch + " does not divide " + WRITES);
        }
        bench = StubBench.open(path);
        cLoop = StubProvider.benchMessageRate();
        qp = bench.loop.qp;
        local = bench.loop.local;
        remoteAddress = bench.loop.remote.address();
        rkey = bench.loop.remote.rkey();
        rounds = WRITES / batch;
        // both sides must work before either is timed: the wr_ids of the signaled WRITEs, batch, 2 batch, ...
        long expected = (long) batch * rounds * (rounds + 1) / 2;
        if (java() != expected || c() != expected) {
            throw new IllegalStateException(path + "/" + batch + ": a round did not complete its signaled WRITE once");
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        if (bench != null) {
            bench.close();
        }
    }

    /** Java: {@value #WRITES} WRITEs of 1 byte through QueuePair.postWrite, a poll per batch. */
    @Benchmark
    @OperationsPerInvocation(WRITES)
    public long java() throws RdmaException {
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            for (int k = 1; k <= batch; k++) {
                qp.postWrite(
                        (long) r * batch + k,
                        local,
                        StubLoopback.DATA,
                        1,
                        remoteAddress,
                        rkey,
                        k == batch ? SendFlags.SIGNALED : SendFlags.NONE);
            }
            sum += bench.pollOne(r);
        }
        return sum;
    }

    /** C: the same in stub_bench.c, one downcall. */
    @Benchmark
    @OperationsPerInvocation(WRITES)
    public long c() throws Throwable {
        long sum = (long) cLoop.invokeExact(
                qp.qpNumber(),
                bench.cPath(),
                local.lkey(),
                local.address() + StubLoopback.DATA,
                remoteAddress,
                rkey,
                bench.cWc,
                StubBench.POLL_CAPACITY,
                batch,
                (long) rounds);
        if (sum < 0) {
            throw new IllegalStateException(path + "/" + batch + ": the C loop failed with errno " + -sum);
        }
        return sum;
    }
}
