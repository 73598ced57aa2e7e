package org.panamardma.benchmarks;

import org.panamardma.verbs.ffi.StubProvider;

/**
 * The instructions Java and C execute per post+poll (and per WRITE of the message-rate loop), counted by callgrind:
 * wall-clock time on a shared host moves by tens of nanoseconds from run to run, an instruction count does not. Runs
 * the very benchmark methods JMH times ({@link BindingCostBenchmark#java()} and {@code c()},
 * {@link MessageRateBenchmark}), each warmed up first with the JIT compiling in the foreground
 * ({@code -XX:-BackgroundCompilation}), then brackets the measured calls with callgrind's zero and dump requests
 * (stub_bench.c): one profile part per side and request, named e.g. {@code java WRITE/ext rounds=10000}.
 * {@code benchmarks/binding-instructions.sh} runs it under valgrind and prints the table.
 *
 * <p>Arguments: requests as {@link BenchmarkSides#open} reads them: {@code WRITE/ext}, {@code rate/ext/16} (the
 * message rate), and also {@code call/critical} or {@code reply/ext/4}; binding-instructions.sh's table pairs the
 * {@code java} and {@code c} parts.
 */
public final class BindingInstructionCount {
    private BindingInstructionCount() {}

    public static void main(String[] args) throws Throwable {
        int warmup = Integer.getInteger("warmup", 300);
        int calls = Integer.getInteger("calls", 10);
        StubProvider.load();
        if (!StubProvider.callgrindZero()) {
            System.err.println("the stub was built without valgrind's headers (valgrind/callgrind.h): nothing counted");
        }
        for (String request : args) {
            BenchmarkSides b = BenchmarkSides.open(request);
            long sink = b.warmUp(warmup);
            for (int side = 0; side < 2; side++) {
                BenchmarkSides.Side body = b.sides()[side];
                StubProvider.callgrindZero();
                for (int i = 0; i < calls; i++) {
                    sink += body.call();
                }
                StubProvider.callgrindDump(b.names()[side] + " " + request + " ops=" + (long) calls * b.opsPerCall());
            }
            b.close().run();
            System.out.println(request + ": done (" + sink + ")");
        }
    }
}
