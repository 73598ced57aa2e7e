package org.panamardma.rdmatool;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Waits until this JVM's JIT compiler threads have stopped working, so that a measurement does not share the CPUs
 * with them. On the emulated testbed this decides the result: a C2 compile of the perf loop takes seconds there,
 * and while the compiler threads hold the second CPU, the kernel worker that completes each Soft-RoCE READ (rxe
 * runs its responder and completer as kernel work items) finds no idle CPU, queues behind the spinning client
 * thread and runs only at the next scheduler tick: 4 ms at HZ=250, whatever the binding costs. perftest's C
 * client compiles nothing, so its second CPU stays idle. Measured with {@code benchmarks/perftest/trace-read-lat.sh}:
 * read_lat p50 of 0.1-0.2 ms once the JIT is done, 3-4 ms while it compiles, and 4-8 ms for C and Java alike when
 * the client is pinned to the worker's CPU.
 *
 * <p>The compiler threads are hidden from {@code ThreadMXBean}, and {@code CompilationMXBean}'s total grows only
 * when a compile ends (a long compile looks idle); so this reads their CPU time from
 * {@code /proc/self/task/<tid>/stat} (threads named {@code C1 CompilerThre...} and {@code C2 CompilerThre...}).
 */
final class JitQuiescence {
    private static final Path TASKS = Path.of("/proc/self/task");
    private static final long POLL_MILLIS = 200;

    private JitQuiescence() {}

    /**
     * Returns once the compiler threads have used no CPU for {@code quiet}, or after {@code max}.
     *
     * @return how long it waited, or a negative duration if the compiler threads' CPU time cannot be read (no
     *     /proc, another JVM): it then waits nothing
     */
    static Duration await(Duration quiet, Duration max) throws InterruptedException {
        long start = System.nanoTime();
        long last = compilerTicks();
        if (last < 0) {
            return Duration.ofNanos(-1);
        }
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < quiet.toNanos() && System.nanoTime() - start < max.toNanos()) {
            Thread.sleep(POLL_MILLIS);
            long now = compilerTicks();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            }
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** @return the user and system clock ticks of the JIT compiler threads so far, or -1 if unreadable */
    static long compilerTicks() {
        long ticks = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                ticks += compilerTicks(stat);
            }
        } catch (IOException | SecurityException e) {
            return -1;
        }
        return ticks;
    }

    /**
     * @return utime + stime of one {@code /proc/<pid>/task/<tid>/stat} line if its thread is a JIT compiler thread,
     *     else 0
     */
    static long compilerTicks(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')'); // a thread name may itself hold parentheses and spaces
        if (open < 0 || close < open) {
            return 0;
        }
        String name = stat.substring(open + 1, close);
        if (!name.startsWith("C1 Compiler") && !name.startsWith("C2 Compiler")) {
            return 0;
        }
        // after the name: state (field 3), ..., utime (field 14), stime (field 15)
        String[] fields = stat.substring(close + 2).trim().split(" ");
        if (fields.length < 13) {
            return 0;
        }
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
