package org.panamardma.benchmarks;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.panamardma.verbs.ffi.StubProvider;

/**
 * What one call into a provider costs by itself, the floor under every row of {@link BindingCostBenchmark}: a
 * function of post_send's shape that does nothing (the stub's {@code stub_nop}), called {@value #BATCH} times from
 * Java through FFM as verbs-ffm calls the provider (the target as a segment, three addresses as {@code long}s,
 * critical or not: {@link #critical}) and from C through a function pointer ({@code stub_bench_calls}).
 */
public class DowncallBenchmark extends StubBenchmarkSettings {
    static final int BATCH = 1000;
    private static final FunctionDescriptor NOP = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle CRITICAL =
            Linker.nativeLinker().downcallHandle(NOP, Linker.Option.critical(false));
    private static final MethodHandle PLAIN = Linker.nativeLinker().downcallHandle(NOP);

    @Param({"true", "false"})
    public boolean critical;

    private MemorySegment nop;
    private MethodHandle cLoop;

    @Setup(Level.Trial)
    public void open() throws Exception {
        SymbolLookup stub = StubProvider.load();
        nop = stub.find("stub_nop").orElseThrow();
        cLoop = Linker.nativeLinker()
                .downcallHandle(
                        stub.find("stub_bench_calls").orElseThrow(),
                        FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }

    /** Java: {@value #BATCH} downcalls. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long java() throws Throwable {
        long sum = 0;
        for (int i = 0; i < BATCH; i++) {
            sum += critical
                    ? (int) CRITICAL.invokeExact(nop, 1L, 2L, (long) i)
                    : (int) PLAIN.invokeExact(nop, 1L, 2L, (long) i);
        }
        return sum;
    }

    /** C: {@value #BATCH} indirect calls, one downcall. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long c() throws Throwable {
        return (long) cLoop.invokeExact(nop, 1L, 2L, 3L, (long) BATCH);
    }
}
