package org.panamardma.benchmarks;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The JIT compilations of this JVM, counted, so that a benchmark can warm up until its code is compiled rather than
 * for a number of iterations chosen in advance: under the testbed's TCG emulation C2's thresholds are crossed
 * thousands of calls apart, and a figure taken while the JIT still compiles measures the JIT (2026-11-27: the Java
 * NFS server ran at 0.4-0.5x its settled speed after 320 calls). The same criterion as
 * {@code perftest/compare-in-guest.sh} applies to the Java NFS server: HotSpot's own log of compilations
 * ({@code -Xlog:jit+compilation=debug}, one line per compilation task), here switched on at run time through the
 * {@code VM.log} diagnostic command into a file of our own, and its lines counted.
 */
final class JitWatch implements AutoCloseable {
    private static final String TAG = "jit,compilation";
    private final Path log;

    private JitWatch(Path log) {
        this.log = log;
    }

    /**
     * Starts logging this JVM's compilations into a new temporary file.
     *
     * @throws IllegalStateException if the JVM refuses ({@code VM.log} is HotSpot's; without it no figure of this
     *         benchmark could say whether it measured compiled code)
     */
    static JitWatch start() throws IOException {
        Path log = Files.createTempFile("panama-rdma-bench-jit", ".log");
        vmLog("output=file=" + log, "what=jit+compilation=debug", "decorators=uptime,tags");
        return new JitWatch(log);
    }

    /** {@return compilations so far} (HotSpot writes each line before the task is compiled: no line is late) */
    long compilations() throws IOException {
        try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
            return lines.filter(l -> l.contains(TAG)).count();
        }
    }

    /**
     * {@return the compilations after the first {@code skip}, one per compiled method, as "tier method": tier 4 is
     *     C2, 1-3 are C1; {@code %} marks an on-stack replacement} What a benchmark's timed span compiled, when the
     *     count says it compiled: which code was not yet warm (its own, or the harness's).
     */
    List<String> compiledSince(long skip) throws IOException {
        try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
            return lines.filter(l -> l.contains(TAG))
                    .skip(skip)
                    .map(JitWatch::tierAndMethod)
                    .toList();
        }
    }

    /**
     * A line of {@code -Xlog:jit+compilation=debug} ("[uptime][jit,compilation]  id  attrs  tier  method (size)")
     * as "tier method" (with "%" for an OSR); the line itself if it has another shape.
     */
    static String tierAndMethod(String line) {
        Matcher m = COMPILATION.matcher(line);
        return m.find() ? m.group(2) + (m.group(1).contains("%") ? "%" : "") + " " + m.group(3) : line.strip();
    }

    private static final Pattern COMPILATION = Pattern.compile("\\]\\s+\\d+\\s+([%sbn! ]*?)\\s*([0-4])\\s+(\\S+)");

    /** Stops the logging into this watch's file (the JVM's other log outputs are left alone), and removes it. */
    @Override
    public void close() throws IOException {
        try {
            vmLog("output=file=" + log, "what=all=off");
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static void vmLog(String... arguments) {
        try {
            Object answer = ManagementFactory.getPlatformMBeanServer()
                    .invoke(
                            new ObjectName("com.sun.management:type=DiagnosticCommand"),
                            "vmLog",
                            new Object[] {arguments},
                            new String[] {String[].class.getName()});
            if (answer instanceof String s && !s.isBlank()) {
                throw new IllegalStateException("VM.log " + String.join(" ", arguments) + ": " + s.strip());
            }
        } catch (JMException e) {
            throw new IllegalStateException(
                    "cannot watch the JIT (the VM.log diagnostic command of HotSpot): " + e.getMessage(), e);
        }
    }

    /**
     * Warm-up until the JIT is quiet: {@code pass} runs again and again until the last {@code window} passes (at
     * least three) were quiet by {@code quiet}, at most {@code maxPasses}. One quiet pass is not enough: C2's
     * thresholds are crossed in bursts, thousands of calls apart. A window as long as the timed passes that follow is
     * what makes them quiet too: with a window of three 16 MiB passes, NfsRpcBench's timed 2 x 64 MiB still saw
     * 16-141 compilations, and C2 took 3-15 ms of the emulated CPU per call there (2026-11-28). The compiler's time
     * counts, not only the compilations: a window that never got below a few compilations (the client's, 150 passes
     * of 16 MiB) still saw a handful whose C2 time was 0.5-3.2 ms per call of the timed READs, a third of the JVM's.
     *
     * @return what the warm-up did, for the log: passes run, compilations and compiler time in the last window,
     *     whether it got quiet
     */
    Warmed warmUp(Quiet quiet, int window, int maxPasses, Pass pass) throws Exception {
        int size = Math.max(3, window);
        long[] compiled = new long[size];
        long[] compilerMillis = new long[size];
        long[] cpuMillis = new long[size];
        int passes = 0;
        Warmed warmed = new Warmed(0, size, Long.MAX_VALUE, 0, 0, false);
        while (passes < maxPasses) {
            long count = compilations(), compiler = compilerMillis(), cpu = processCpuMillis();
            pass.run();
            int slot = passes % size;
            compiled[slot] = compilations() - count;
            compilerMillis[slot] = compilerMillis() - compiler;
            cpuMillis[slot] = processCpuMillis() - cpu;
            passes++;
            if (passes >= size) {
                long c = 0, compilerTime = 0, cpuTime = 0;
                for (int i = 0; i < size; i++) {
                    c += compiled[i];
                    compilerTime += compilerMillis[i];
                    cpuTime += cpuMillis[i];
                }
                warmed = new Warmed(passes, size, c, compilerTime, cpuTime, quiet.isQuiet(c, compilerTime, cpuTime));
                if (warmed.quiet()) {
                    break;
                }
            }
        }
        return passes == warmed.passes() ? warmed : new Warmed(passes, size, Long.MAX_VALUE, 0, 0, false);
    }

    /**
     * {@return the JIT's compiling time so far, milliseconds} (HotSpot's {@code sun.ci.totalTime}: each task's
     * elapsed time, summed over the compiler threads; on a busy machine more than their CPU time, so a criterion on
     * it errs towards warming longer)
     */
    private static long compilerMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /** {@return this JVM's CPU time so far, all its threads, milliseconds} (-1 where the platform does not say) */
    private static long processCpuMillis() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() / 1_000_000
                : -1;
    }

    /**
     * When a window of warm-up passes counts as quiet: at most {@code compilations} compilations in it, or the JIT's
     * compiling time at most {@code compilerShare} of this JVM's CPU time over it (so that the few compilations a
     * long-running client still sees, small ones, do not keep it warming; and big ones do). A negative value
     * switches its criterion off.
     */
    record Quiet(long compilations, double compilerShare) {
        boolean isQuiet(long compiled, long compilerMillis, long cpuMillis) {
            return compiled <= compilations
                    || (compilerShare >= 0 && cpuMillis >= 0 && compilerMillis <= compilerShare * cpuMillis);
        }
    }

    /** One warm-up pass. */
    @FunctionalInterface
    interface Pass {
        void run() throws Exception;
    }

    /**
     * @param passes the passes run
     * @param window how many of the last passes the quiet criterion covers
     * @param inWindow compilations during the last {@code window} ({@link Long#MAX_VALUE} if fewer ran)
     * @param compilerMillis the JIT's compiling time during them
     * @param cpuMillis this JVM's CPU time during them
     * @param quiet whether they were quiet ({@link Quiet})
     */
    record Warmed(int passes, int window, long inWindow, long compilerMillis, long cpuMillis, boolean quiet) {
        @Override
        public String toString() {
            if (inWindow == Long.MAX_VALUE) {
                return passes + " passes, fewer than the window of " + window + " (NOT quiet)";
            }
            return passes + " passes, the last " + window + " with " + inWindow + " compilations, the compiler "
                    + compilerMillis + " ms of the JVM's " + cpuMillis + " ms CPU"
                    + (quiet ? "" : " (NOT quiet: the figures include JIT time)");
        }
    }
}
