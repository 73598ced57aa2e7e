package org.panamardma.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * The binding-cost and message-rate benchmarks' own methods, timed by the measuring thread's CPU time
 * ({@code CLOCK_THREAD_CPUTIME_ID}) instead of the wall clock: on a host whose cores are shared by more runnable
 * threads than it has, a thread waits for a CPU most of the time and JMH's wall-clock figures grow by hundreds of
 * nanoseconds, while the CPU time a thread spends in its own code grows only by what the others leave in the caches.
 * Each side (Java, C) runs {@code samples} samples of {@code calls} benchmark calls, alternating; the least CPU time
 * per operation of the samples is printed beside the least wall-clock time, so that the two can be compared.
 *
 * <p>Arguments: requests as {@link BenchmarkSides#open} reads them ({@code WRITE/ext}, {@code rate/ext/16},
 * {@code call/critical}, {@code reply/ext/4}). Prints one line per request:
 * {@code cpu REQUEST java=NS c=NS wall java=NS c=NS} ({@code separate=} and {@code chain=} for a reply).
 */
public final class BindingCpuTime {
    private BindingCpuTime() {}

    public static void main(String[] args) throws Throwable {
        int warmup = Integer.getInteger("warmup", 2000);
        int samples = Integer.getInteger("samples", 400);
        int calls = Integer.getInteger("calls", 10);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (String request : args) {
            BenchmarkSides b = BenchmarkSides.open(request);
            long sink = b.warmUp(warmup);
            double[] cpu = {Double.MAX_VALUE, Double.MAX_VALUE};
            double[] wall = {Double.MAX_VALUE, Double.MAX_VALUE};
            double ops = (double) calls * b.opsPerCall();
            for (int s = 0; s < samples; s++) {
                for (int side = 0; side < 2; side++) {
                    BenchmarkSides.Side body = b.sides()[side];
                    long c0 = threads.getCurrentThreadCpuTime();
                    long w0 = System.nanoTime();
                    for (int i = 0; i < calls; i++) {
                        sink += body.call();
                    }
                    long w1 = System.nanoTime();
                    long c1 = threads.getCurrentThreadCpuTime();
                    cpu[side] = Math.min(cpu[side], (c1 - c0) / ops);
                    wall[side] = Math.min(wall[side], (w1 - w0) / ops);
                }
            }
            b.close().run();
            String[] names = b.names();
            System.out.printf(
                    Locale.ROOT,
                    "cpu %s %s=%.2f %s=%.2f wall %s=%.2f %s=%.2f (%d)%n",
                    request,
                    names[0],
                    cpu[0],
                    names[1],
                    cpu[1],
                    names[0],
                    wall[0],
                    names[1],
                    wall[1],
                    sink & 1);
        }
    }
}
