package org.panamardma.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Bytes allocated per operation by the benchmark's own worker threads only: {@code -prof
 * org.panamardma.benchmarks.WorkerAllocationProfiler}, reported as {@code worker.alloc.norm} (B/op).
 *
 * <p>Why, beside {@code -prof gc}: JMH 1.37's {@code gc.alloc.rate.norm} divides the allocation of <em>every</em>
 * thread of the JVM ({@code ThreadMXBean.getTotalThreadAllocatedBytes}: JMH's control thread, its timers, the JVM's
 * service threads) by the operations of the iteration. That background is a few KB per second; where an operation
 * takes a millisecond (the emulated Soft-RoCE of the testbed) it shows as ~10 B/op that no operation allocated, and it
 * scales with time, not operations. This profiler reads {@code getThreadAllocatedBytes} of the threads named
 * {@code *-jmh-worker-*} (the threads that run the benchmark method) before and after each iteration, from JMH's
 * control thread, so its own allocation is not counted, and divides by the same operation count as the GC profiler
 * (all operations of the iteration, including the synchronization edges).
 */
public final class WorkerAllocationProfiler implements InternalProfiler {
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private Map<Long, Long> before = Map.of();

    @Override
    public String getDescription() {
        return "bytes allocated per operation by the benchmark's worker threads only (ThreadMXBean per thread)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        before = snapshot();
    }

    @Override
    @SuppressWarnings("rawtypes") // JMH's InternalProfiler declares the raw Result type
    public Collection<? extends Result> afterIteration(
            BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
        Map<Long, Long> after = snapshot();
        long bytes = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            // a worker that started inside the iteration counts from zero
            bytes += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        long ops = result.getMetadata().getAllOps();
        List<Result> out = new ArrayList<>();
        if (ops > 0 && !after.isEmpty()) {
            out.add(new ScalarResult("worker.alloc.norm", (double) bytes / ops, "B/op", AggregationPolicy.AVG));
            out.add(new ScalarResult("worker.alloc.bytes", bytes, "B", AggregationPolicy.AVG));
        }
        return out;
    }

    private Map<Long, Long> snapshot() {
        Map<Long, Long> bytes = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().contains("-jmh-worker-")) {
                long b = threads.getThreadAllocatedBytes(t.threadId());
                if (b >= 0) {
                    bytes.put(t.threadId(), b);
                }
            }
        }
        return bytes;
    }
}
