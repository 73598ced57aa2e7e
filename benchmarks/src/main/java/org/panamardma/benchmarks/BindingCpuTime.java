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
 * <p>Arguments: requests as {@link BindingInstructionCount}'s ({@code WRITE/ext}, {@code rate/ext/16}), or
 * {@code call/critical} and {@code call/plain} ({@link DowncallBenchmark}), or {@code reply/ext/4} ({@link
 * ReplyChainBenchmark}: its two ways of posting a reply of 4 WRITEs and a SEND, printed as separate and chain). Prints one
 * line per request: {@code cpu REQUEST java=NS c=NS wall java=NS c=NS}.
 */
public final class BindingCpuTime {
    private BindingCpuTime() {}

    @FunctionalInterface
    private interface Body {
        long call() throws Throwable;
    }

    public static void main(String[] args) throws Throwable {
        int warmup = Integer.getInteger("warmup", 2000);
        int samples = Integer.getInteger("samples", 400);
        int calls = Integer.getInteger("calls", 10);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (String request : args) {
            Body java;
            Body c;
            Runnable close;
            int perCall;
            if (request.startsWith("call/")) {
                DowncallBenchmark b = new DowncallBenchmark();
                b.critical = request.equals("call/critical");
                b.open();
                java = b::java;
                c = b::c;
                close = () -> { };
                perCall = DowncallBenchmark.BATCH;
            } else if (request.startsWith("reply/")) {
                // ReplyChainBenchmark: "java" is the reply posted one request per call, "c" the same as one chain
                String[] p = request.split("/");
                ReplyChainBenchmark b = new ReplyChainBenchmark();
                b.path = p[1];
                b.writes = Integer.parseInt(p[2]);
                b.open();
                java = b::separate;
                c = b::chain;
                close = b::close;
                perCall = 1;
            } else if (request.startsWith("rate/")) {
                String[] p = request.split("/");
                MessageRateBenchmark b = new MessageRateBenchmark();
                b.path = p[1];
                b.batch = Integer.parseInt(p[2]);
                b.open();
                java = b::java;
                c = b::c;
                close = b::close;
                perCall = MessageRateBenchmark.WRITES;
            } else {
                BindingCostBenchmark b = new BindingCostBenchmark();
                b.request = request;
                b.open();
                java = b::java;
                c = b::c;
                close = b::close;
                perCall = BindingCostBenchmark.BATCH;
            }
            long sink = 0;
            for (int i = 0; i < warmup; i++) {
                sink += java.call() + c.call();
            }
            double[] cpu = {Double.MAX_VALUE, Double.MAX_VALUE};
            double[] wall = {Double.MAX_VALUE, Double.MAX_VALUE};
            Body[] sides = {java, c};
            double ops = (double) calls * perCall;
            for (int s = 0; s < samples; s++) {
                for (int side = 0; side < 2; side++) {
                    long c0 = threads.getCurrentThreadCpuTime();
                    long w0 = System.nanoTime();
                    for (int i = 0; i < calls; i++) {
                        sink += sides[side].call();
                    }
                    long w1 = System.nanoTime();
                    long c1 = threads.getCurrentThreadCpuTime();
                    cpu[side] = Math.min(cpu[side], (c1 - c0) / ops);
                    wall[side] = Math.min(wall[side], (w1 - w0) / ops);
                }
            }
            close.run();
            String[] names = request.startsWith("reply/") ? new String[] {"separate", "chain"}
                    : new String[] {"java", "c"};
            System.out.printf(Locale.ROOT, "cpu %s %s=%.2f %s=%.2f wall %s=%.2f %s=%.2f (%d)%n", request, names[0],
                    cpu[0], names[1], cpu[1], names[0], wall[0], names[1], wall[1], sink & 1);
        }
    }
}
