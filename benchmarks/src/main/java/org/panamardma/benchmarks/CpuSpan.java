package org.panamardma.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where the CPU went over the timed spans of a benchmark: the machine's split ({@code /proc/stat}: user, system,
 * softirq, idle over all CPUs) and this JVM's own ({@code /proc/self/stat}), the latter by thread
 * ({@code /proc/self/task/TID/stat}, threads grouped by name with their digits dropped). On the testbed's emulated
 * guest this says whether a client is bound by CPU (the guest's idle time near zero, the client's threads filling
 * it) or waits (for the device, a wake-up, a scheduler tick), and which of its threads spend what per call: the
 * profile issue 26 asks for where the Java client misses the kernel client. Threads that ended within a span (a
 * pass's worker pool) are counted in the JVM's total only: the difference is shown as such.
 *
 * <p>Linux only; the figures are in USER_HZ ticks (100 per second on every Linux architecture Java runs on), so a
 * span should last seconds. Spans add up: {@link #begin} and {@link #end} around each timed piece.
 */
final class CpuSpan {
    /** USER_HZ: the unit of /proc's CPU times (fixed at 100 for user space on Linux). */
    private static final double TICKS_PER_SECOND = 100.0;

    private static final Path PROC_STAT = Path.of("/proc/stat");
    private static final Path SELF_STAT = Path.of("/proc/self/stat");
    private static final Path SELF_TASKS = Path.of("/proc/self/task");
    private static final String[] MACHINE = {"user", "system", "softirq", "idle", "iowait+irq", "steal"};

    private final long[] machine = new long[MACHINE.length];
    private final long[] jvm = new long[2]; // user, system
    private final Map<String, Long> threads = new TreeMap<>();
    private long wallNanos;
    private Snapshot start;

    /** One reading of the counters. */
    private record Snapshot(long nanos, long[] machine, long[] jvm, Map<Long, ThreadTicks> threads) {}

    private record ThreadTicks(String group, long ticks) {}

    /** Starts a span. */
    void begin() {
        start = snapshot();
    }

    /** Ends the span {@link #begin} started and adds it to the totals. */
    void end() {
        if (start == null) {
            throw new IllegalStateException("end() without begin()");
        }
        Snapshot now = snapshot();
        wallNanos += now.nanos - start.nanos;
        for (int i = 0; i < machine.length; i++) {
            machine[i] += now.machine[i] - start.machine[i];
        }
        for (int i = 0; i < jvm.length; i++) {
            jvm[i] += now.jvm[i] - start.jvm[i];
        }
        now.threads.forEach((tid, t) -> {
            ThreadTicks before = start.threads.get(tid);
            long used = t.ticks - (before == null ? 0 : before.ticks);
            if (used > 0) {
                threads.merge(t.group, used, Long::sum);
            }
        });
        start = null;
    }

    /**
     * {@return the totals per call, in milliseconds: wall time, the machine's split over all its CPUs (so idle time
     *     over 2 CPUs can reach twice the wall time), the JVM's user and system time, and its busiest thread groups}
     *
     * @param calls the calls the spans made
     */
    String perCall(long calls) {
        double per = 1000.0 / TICKS_PER_SECOND / calls;
        StringBuilder s = new StringBuilder(String.format(
                Locale.ROOT,
                "wall %.2f ms per call over %d calls; machine (all CPUs):",
                wallNanos / 1e6 / calls,
                calls));
        for (int i = 0; i < MACHINE.length; i++) {
            s.append(String.format(Locale.ROOT, " %s %.2f", MACHINE[i], machine[i] * per));
        }
        s.append(String.format(
                Locale.ROOT, "; this JVM: user %.2f system %.2f; by thread:", jvm[0] * per, jvm[1] * per));
        List<Map.Entry<String, Long>> busiest = new ArrayList<>(threads.entrySet());
        busiest.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        long named = 0;
        for (Map.Entry<String, Long> e : busiest) {
            named += e.getValue();
            s.append(String.format(Locale.ROOT, " %s %.2f,", e.getKey(), e.getValue() * per));
        }
        long ended = jvm[0] + jvm[1] - named;
        s.append(String.format(Locale.ROOT, " threads that ended within the spans %.2f", Math.max(0, ended) * per));
        return s.toString();
    }

    private static Snapshot snapshot() {
        try {
            long nanos = System.nanoTime();
            return new Snapshot(nanos, machine(), jvm(), threads());
        } catch (IOException e) {
            throw new UncheckedIOException("reading /proc (CpuSpan is Linux-only)", e);
        }
    }

    /** The first line of /proc/stat: user nice system idle iowait irq softirq steal ..., in ticks. */
    private static long[] machine() throws IOException {
        String all = Files.readString(PROC_STAT, StandardCharsets.US_ASCII);
        long[] f = fields(all.substring(0, all.indexOf('\n')), 1, 8); // "cpu" first
        return new long[] {f[0] + f[1], f[2], f[6], f[3], f[4] + f[5], f[7]};
    }

    private static long[] jvm() throws IOException {
        long[] f = statTimes(Files.readString(SELF_STAT, StandardCharsets.US_ASCII));
        return new long[] {f[0], f[1]};
    }

    private static Map<Long, ThreadTicks> threads() throws IOException {
        Map<Long, ThreadTicks> all = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(SELF_TASKS)) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
                } catch (IOException ended) {
                    // the thread ended while we listed: its file is gone (NoSuchFileException), or still there and
                    // its read fails with ESRCH ("No such process", seen when a pass's worker pool shut down)
                    continue;
                }
                long[] t = statTimes(stat);
                all.put(Long.parseLong(task.getFileName().toString()), new ThreadTicks(group(stat), t[0] + t[1]));
            }
        }
        return all;
    }

    /** utime and stime of a /proc stat line: fields 14 and 15, counted after the parenthesized name. */
    static long[] statTimes(String stat) {
        // after ") " comes field 3 (the state): utime is the 12th field from there, stime the 13th
        return fields(stat.substring(stat.lastIndexOf(')') + 2), 11, 2);
    }

    /**
     * {@code count} numbers of the space-separated {@code line}, from field {@code skip} (0-based) on: no regular
     * expression, so that what the accounting runs stays small next to the code it measures.
     */
    static long[] fields(String line, int skip, int count) {
        long[] out = new long[count];
        int field = 0;
        int i = 0;
        int n = line.length();
        while (field < skip + count) {
            while (i < n && line.charAt(i) == ' ') {
                i++;
            }
            int start = i;
            while (i < n && line.charAt(i) != ' ' && line.charAt(i) != '\n') {
                i++;
            }
            if (start == i) {
                throw new IllegalArgumentException("fewer than " + (skip + count) + " fields: " + line);
            }
            if (field >= skip) {
                out[field - skip] = Long.parseLong(line, start, i, 10);
            }
            field++;
        }
        return out;
    }

    /** The thread's name (field 2, at most 15 characters) with digits dropped: one pool's threads are one group. */
    static String group(String stat) {
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        StringBuilder group = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                group.append(c);
            } else if (group.isEmpty() || group.charAt(group.length() - 1) != '#') {
                group.append('#');
            }
        }
        return group.toString();
    }
}
