package org.panamardma.benchmarks;

/**
 * One request of the stub benchmarks as the two sides its harnesses time alike ({@link BindingCpuTime} by thread
 * CPU time, {@link BindingInstructionCount} by callgrind's instruction count), built from the very JMH benchmark
 * methods, so that every harness measures the same code:
 * <ul>
 *   <li>{@code SEND/ext}, {@code WRITE/legacy}, ...: {@link BindingCostBenchmark}, Java and C per post+poll;</li>
 *   <li>{@code rate/PATH/BATCH}: {@link MessageRateBenchmark}, Java and C per WRITE;</li>
 *   <li>{@code call/critical}, {@code call/plain}: {@link DowncallBenchmark}, Java and C per call into a no-op;</li>
 *   <li>{@code reply/PATH/WRITES}: {@link ReplyChainBenchmark}, the reply posted one request per call
 *       ({@code separate}) and as one chain ({@code chain}), per reply.</li>
 * </ul>
 *
 * @param request the request as given
 * @param names   what the two sides are called in the output ({@code java}, {@code c}; {@code separate}, {@code chain})
 * @param sides   the two sides, each one benchmark call
 * @param opsPerCall operations per benchmark call, to report per operation
 * @param close   releases what the benchmark opened
 */
record BenchmarkSides(String request, String[] names, Side[] sides, int opsPerCall, Runnable close) {
    /** One benchmark call of one side; its result goes into a sink so that the JIT cannot drop the call. */
    @FunctionalInterface
    interface Side {
        long call() throws Throwable;
    }

    /** Sets up the benchmark a request names and checks both its sides work (each benchmark's setup does). */
    static BenchmarkSides open(String request) throws Throwable {
        String[] p = request.split("/");
        String[] javaAndC = {"java", "c"};
        switch (p[0]) {
            case "call" -> {
                DowncallBenchmark b = new DowncallBenchmark();
                b.critical = request.equals("call/critical");
                b.open();
                return new BenchmarkSides(
                        request, javaAndC, new Side[] {b::java, b::c}, DowncallBenchmark.BATCH, () -> {});
            }
            case "reply" -> {
                ReplyChainBenchmark b = new ReplyChainBenchmark();
                b.path = p[1];
                b.writes = Integer.parseInt(p[2]);
                b.open();
                return new BenchmarkSides(
                        request, new String[] {"separate", "chain"}, new Side[] {b::separate, b::chain}, 1, b::close);
            }
            case "rate" -> {
                MessageRateBenchmark b = new MessageRateBenchmark();
                b.path = p[1];
                b.batch = Integer.parseInt(p[2]);
                b.open();
                return new BenchmarkSides(
                        request, javaAndC, new Side[] {b::java, b::c}, MessageRateBenchmark.WRITES, b::close);
            }
            default -> {
                BindingCostBenchmark b = new BindingCostBenchmark();
                b.request = request;
                b.open();
                return new BenchmarkSides(
                        request, javaAndC, new Side[] {b::java, b::c}, BindingCostBenchmark.BATCH, b::close);
            }
        }
    }

    /** Both sides {@code calls} times each, alternating, so that the JIT compiles both before either is measured. */
    long warmUp(int calls) throws Throwable {
        long sink = 0;
        for (int i = 0; i < calls; i++) {
            sink += sides[0].call() + sides[1].call();
        }
        return sink;
    }
}
