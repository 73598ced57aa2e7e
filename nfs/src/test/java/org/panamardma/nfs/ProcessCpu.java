package org.panamardma.nfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The CPU time of a process and of each of its threads at one moment, from {@code /proc/PID/stat} and
 * {@code /proc/PID/task/TID/stat} (utime + stime, fields 14 and 15, in clock ticks of 10 ms: proc(5)). Two of them
 * tell how much CPU the process used between them and which threads used it.
 */
record ProcessCpu(long totalTicks, Map<String, Long> threadTicks) {
    /** USER_HZ: 100 on every Linux architecture the testbed runs (proc(5), sysconf(_SC_CLK_TCK)). */
    static final long MILLIS_PER_TICK = 10;

    /** Reads the process's and its threads' CPU time now. */
    static ProcessCpu of(long pid) throws IOException {
        Path proc = Path.of("/proc/" + pid);
        long total = ticks(Files.readString(proc.resolve("stat")));
        Map<String, Long> threads = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(proc.resolve("task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    threads.put(task.getFileName() + " " + name(stat), ticks(stat));
                } catch (NoSuchFileException ended) {
                    // the thread ended between the listing and the read
                }
            }
        }
        return new ProcessCpu(total, threads);
    }

    /** {@return the process's CPU time since {@code earlier}, in milliseconds} */
    long millisSince(ProcessCpu earlier) {
        return (totalTicks - earlier.totalTicks) * MILLIS_PER_TICK;
    }

    /** {@return the threads that used CPU since {@code earlier}, busiest first, with their milliseconds} */
    String busiestSince(ProcessCpu earlier) {
        return threadTicks.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - earlier.threadTicks.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(6)
                .map(e -> e.getKey() + " " + e.getValue() * MILLIS_PER_TICK + " ms")
                .collect(Collectors.joining(", "));
    }

    /** The thread's name: between the first '(' and the last ')' (a name may hold both). */
    private static String name(String stat) {
        return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    }

    /** utime + stime: the 12th and 13th fields after the name's closing parenthesis. */
    private static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
