package org.panamardma.benchmarks;

import java.lang.invoke.MethodHandle;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.StubLoopback;
import org.panamardma.verbs.StubOperation;
import org.panamardma.verbs.ffi.StubProvider;

/**
 * What the Java binding itself costs per post+poll on the real CPU (issue 15, item 3): the same request posted and
 * its completion polled {@value #BATCH} times per call, by Java through verbs-ffm's QueuePair and CompletionQueue
 * ({@link #java()}), and by C making the same calls through the same function pointers on the same QP and CQ
 * ({@link #c()}: stub_bench.c, one downcall per batch so the call into C is amortised). The device is the stub
 * provider (native-headers/stub, {@link StubProvider}): it completes every request at once, so both sides measure the
 * binding plus the same few nanoseconds of provider code, and {@code java - c} is what the binding adds.
 *
 * <p>{@link #request} names the operation and the path ({@link StubLoopback.Path}): {@code ext} is an extended QP
 * and CQ as the library uses them ({@code ibv_post_send}, and for FLUSH and ATOMIC WRITE {@code ibv_wr_start}, the
 * builder, {@code ibv_wr_complete}; polled with {@code ibv_poll_cq}), {@code legacy} a plain QP and CQ
 * ({@code ibv_post_send}, {@code ibv_poll_cq}), {@code wr} the extended QP and CQ with every request through
 * {@code ibv_wr_*} ({@code ibv_wr_start}, the builder, {@code ibv_wr_set_sge}, {@code ibv_wr_complete}) and polled
 * with {@code ibv_start_poll} / {@code ibv_next_poll} / {@code ibv_end_poll} and the {@code ibv_wc_read_*} the
 * library reads (the library's extended path before issue 26; still the path of providers whose extended CQs
 * {@code ibv_poll_cq} is not known to serve). On each path C makes the same calls as Java. FLUSH and ATOMIC WRITE
 * exist only in the extended API.
 *
 * <p>Runs on any Linux x86_64 host with gcc and the rdma-core 56 header set ({@code native-headers/headers/fetch.sh
 * debian13}); no RDMA device, no libibverbs needed (each fork loads the stub as its libibverbs before anything else:
 * {@link StubProvider}). {@code java --enable-native-access=ALL-UNNAMED -jar benchmarks/target/benchmarks.jar
 * BindingCost -f 1 -wi 3 -i 5 -w 1s -r 1s}, or {@code benchmarks/binding-cost.sh}, which also prints the table.
 */
public class BindingCostBenchmark extends StubBenchmarkSettings {
    /** Post+poll rounds per benchmark call; the C side makes one downcall per batch. */
    static final int BATCH = 1000;

    @Param({
        "SEND/ext",
        "SEND/legacy",
        "WRITE/ext",
        "WRITE/legacy",
        "READ/ext",
        "READ/legacy",
        "FETCH_ADD/ext",
        "FETCH_ADD/legacy",
        "FLUSH/ext",
        "ATOMIC_WRITE/ext",
        "WRITE/wr",
        "FLUSH/wr"
    })
    public String request;

    private static MethodHandle cLoop;

    private StubOperation op;
    private StubBench bench;
    private StubLoopback loop;
    private int qpNumber;
    private int path;
    private int lkey;
    private long address;
    private long remoteAddress;
    private int rkey;

    @Setup(Level.Trial)
    public void open() throws Throwable {
        String[] parts = request.split("/");
        op = StubOperation.valueOf(parts[0]);
        if (op.cOp() < 0 || (StubBench.path(parts[1]) == StubLoopback.Path.LEGACY && !op.onLegacyPath())) {
            throw new IllegalArgumentException(request + ": no such request on that path");
        }
        bench = StubBench.open(parts[1]);
        cLoop = StubProvider.benchPostPoll();
        loop = bench.loop;
        qpNumber = loop.qp.qpNumber();
        path = bench.cPath();
        lkey = loop.local.lkey();
        address = loop.local.address() + StubLoopback.DATA;
        remoteAddress = loop.remote.address();
        rkey = loop.remote.rkey();
        // both sides must work before either is timed
        long expected = (long) BATCH * (BATCH + 1) / 2;
        if (java() != expected || c() != expected) {
            throw new IllegalStateException(request + ": a batch did not complete every request once");
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        if (bench != null) {
            bench.close();
        }
    }

    /** Java: {@value #BATCH} x (post one signaled request through QueuePair, poll its completion). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long java() throws RdmaException {
        long sum = 0;
        for (int i = 1; i <= BATCH; i++) {
            op.postOn(loop, i);
            sum += bench.pollOne(i);
        }
        return sum;
    }

    /** C: the same {@value #BATCH} rounds in stub_bench.c, one downcall. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long c() throws Throwable {
        long sum = (long) cLoop.invokeExact(
                qpNumber,
                path,
                op.cOp(),
                lkey,
                address,
                StubLoopback.LENGTH,
                remoteAddress,
                rkey,
                bench.cWc,
                StubBench.POLL_CAPACITY,
                (long) BATCH);
        if (sum < 0) {
            throw new IllegalStateException(request + ": the C loop failed with errno " + -sum);
        }
        return sum;
    }
}
