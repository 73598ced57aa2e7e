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
 * <p>Arguments: requests as {@link BindingCostBenchmark#request} ({@code WRITE/ext}), or {@code rate/PATH/BATCH}
 * for the message rate ({@code rate/ext/16}).
 */
public final class BindingInstructionCount {
    private BindingInstructionCount() {}

    @FunctionalInterface
    private interface Body {
        long call() throws Throwable;
    }

    public static void main(String[] args) throws Throwable {
        int warmup = Integer.getInteger("warmup", 300);
        int calls = Integer.getInteger("calls", 10);
        StubProvider.load();
        if (!StubProvider.callgrindZero()) {
            System.err.println("the stub was built without valgrind's headers (valgrind/callgrind.h): nothing counted");
        }
        for (String request : args) {
            Body java;
            Body c;
            Runnable close;
            int perCall;
            if (request.startsWith("rate/")) {
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
            for (var side : new Object[][] {{"java", java}, {"c", c}}) {
                Body body = (Body) side[1];
                StubProvider.callgrindZero();
                for (int i = 0; i < calls; i++) {
                    sink += body.call();
                }
                StubProvider.callgrindDump(side[0] + " " + request + " ops=" + (long) calls * perCall);
            }
            close.run();
            System.out.println(request + ": done (" + sink + ")");
        }
    }
}
