package org.panamardma.netty;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * What the JIT and the event loops did during {@link AllocationProbe}'s runs, from a flight recording in the probe's
 * JVM: the deoptimisations and compilations in each run, and, for a run that allocated, where its loop threads
 * allocated (sampled, with each frame marked interpreted, compiled or inlined). Only the probe's JVM loads this class.
 *
 * <p>Why: in two of about twelve rehearsals (r26, r30) both loops allocated 62-70 bytes a round trip in runs that
 * came after a clean one, and never in a probe run alone. A deoptimised method running interpreted until C2 compiles
 * it again would explain it, and so would a path taken only sometimes (a wake-up the timing of the emulated device
 * decides). The recording tells which, the next time it happens.
 */
final class AllocationTrace implements AutoCloseable {
    /** One run of round trips: its label (w3: third warm-up, m2: second measured), when, and whether it allocated. */
    private record Run(String label, Instant start, Instant end, boolean dirty) {}

    private final Recording recording = new Recording();
    private final List<Run> runs = new ArrayList<>();

    AllocationTrace() {
        recording
                .enable("jdk.ObjectAllocationSample")
                .with("throttle", "1000/s")
                .withStackTrace();
        recording.enable("jdk.Deoptimization").withThreshold(Duration.ZERO).withStackTrace();
        recording.enable("jdk.Compilation").withThreshold(Duration.ZERO);
        recording.setToDisk(true);
        recording.start();
    }

    void run(String label, Instant start, Instant end, boolean dirty) {
        runs.add(new Run(label, start, end, dirty));
    }

    /**
     * Prints the deoptimisations (each), the compilations of the measured runs (each) and, if a run allocated, its
     * loop threads' allocation sites by sampled weight; then one line {@code jfr.summary=...} for a failure message.
     */
    void report(PrintStream out, long serverThread, long clientThread) throws IOException {
        Path file = Files.createTempFile("allocation-probe", ".jfr");
        try {
            recording.dump(file);
            List<RecordedEvent> events = RecordingFile.readAllEvents(file);
            events.sort(Comparator.comparing(RecordedEvent::getStartTime));
            Map<String, Integer> deoptsPerRun = new LinkedHashMap<>();
            Map<String, Integer> compilationsPerRun = new LinkedHashMap<>();
            Map<String, long[]> sites = new LinkedHashMap<>();
            long dirtyWeight = 0;
            int measuredCompilations = 0; // the first 20 are listed: JFR's own code is compiled as it runs too
            for (RecordedEvent e : events) {
                Run run = runAt(e.getStartTime());
                String where = run == null ? "between runs" : run.label();
                switch (e.getEventType().getName()) {
                    case "jdk.Deoptimization" -> {
                        deoptsPerRun.merge(where, 1, Integer::sum);
                        out.println("jfr: deoptimization in " + where + ": " + method(e.getValue("method")) + " line "
                                + e.getValue("lineNumber") + ", reason " + e.getValue("reason") + ", action "
                                + e.getValue("action") + ", thread " + threadName(e) + "; " + frames(e, 4));
                    }
                    case "jdk.Compilation" -> {
                        compilationsPerRun.merge(where, 1, Integer::sum);
                        if (run != null && run.label().startsWith("m") && measuredCompilations++ < 20) {
                            out.println("jfr: compilation in " + where + ": " + method(e.getValue("method"))
                                    + (e.getBoolean("isOsr") ? " (OSR)" : "") + ", level " + e.getValue("compileLevel")
                                    + (e.getBoolean("succeded") ? "" : ", failed"));
                        }
                    }
                    case "jdk.ObjectAllocationSample" -> {
                        RecordedThread t = e.getThread("eventThread");
                        if (run == null || !run.dirty() || t == null) {
                            break;
                        }
                        long id = t.getJavaThreadId();
                        if (id != serverThread && id != clientThread) {
                            break;
                        }
                        String loop = id == serverThread ? "server" : "client";
                        String site = loop + " " + e.getClass("objectClass").getName() + " at " + frames(e, 8);
                        long weight = e.getLong("weight");
                        long[] w = sites.computeIfAbsent(site, k -> new long[2]);
                        w[0] += weight;
                        w[1]++;
                        dirtyWeight += weight;
                    }
                    default -> {}
                }
            }
            List<Map.Entry<String, long[]>> bySize = new ArrayList<>(sites.entrySet());
            bySize.sort(Comparator.comparingLong((Map.Entry<String, long[]> s) -> s.getValue()[0])
                    .reversed());
            for (Map.Entry<String, long[]> s : bySize.subList(0, Math.min(8, bySize.size()))) {
                out.println("jfr: allocated in the runs that allocated, " + s.getValue()[0] + " bytes in "
                        + s.getValue()[1] + " samples: " + s.getKey());
            }
            out.println("jfr.summary=deoptimizations per run " + deoptsPerRun + "; compilations per run "
                    + compilationsPerRun + "; runs that allocated "
                    + runs.stream().filter(Run::dirty).map(Run::label).toList() + ", sampled " + dirtyWeight
                    + " bytes on the loops"
                    + (bySize.isEmpty() ? "" : ", most at " + bySize.getFirst().getKey()));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Override
    public void close() {
        recording.close();
    }

    private Run runAt(Instant t) {
        for (Run r : runs) {
            if (!t.isBefore(r.start()) && !t.isAfter(r.end())) {
                return r;
            }
        }
        return null;
    }

    private static String threadName(RecordedEvent e) {
        RecordedThread t = e.getThread("eventThread");
        return t == null ? "?" : t.getJavaName();
    }

    private static String method(RecordedMethod m) {
        return m == null ? "?" : m.getType().getName() + "." + m.getName();
    }

    /** The top frames of the event's stack, each marked I (interpreted), C (compiled), N (inlined) or ? */
    private static String frames(RecordedEvent e, int depth) {
        RecordedStackTrace st = e.getStackTrace();
        if (st == null) {
            return "no stack";
        }
        StringBuilder b = new StringBuilder();
        List<RecordedFrame> frames = st.getFrames();
        for (int i = 0; i < Math.min(depth, frames.size()); i++) {
            RecordedFrame f = frames.get(i);
            String type = f.getType();
            char mark = switch (type == null ? "" : type) {
                case "Interpreted" -> 'I';
                case "JIT compiled" -> 'C';
                case "Inlined" -> 'N';
                default -> '?';
            };
            if (i > 0) {
                b.append(" < ");
            }
            b.append(mark).append(' ').append(method(f.getMethod())).append(':').append(f.getLineNumber());
        }
        return b.toString();
    }
}
