package org.panamardma.benchmarks;

import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.connection.ConnectionCapabilities;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;
import org.panamardma.verbs.connection.agent.AgentMode;

/**
 * FetchAdd through the connection layer ({@link RdmaConnection#fetchAdd}), in one JVM and one boot: rxe's own
 * atomics, the RFC 7306 agent forced on rxe, and the agent on siw (which has no atomics of its own). Round trips one
 * at a time (latency, p50/p99) and pipelined (operations per second, up to the connection's depth in flight), each
 * with the default poller (sleeps on the completion channel) and a busy-polling one. Every configuration checks the
 * counter at the server: warm-up + measured + pipelined increments, each applied once.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar org.panamardma.benchmarks.AgentAtomicsBench \
 *     [--rxe 10.77.0.2] [--siw 10.77.1.2] [--iters 1000] [--warmup 1000] [--pipelined 2000] [--csv FILE]
 * </pre>
 */
public final class AgentAtomicsBench {
    private AgentAtomicsBench() {}

    /** One measured configuration. */
    record Row(
            String device,
            ConnectionCapabilities.Provider by,
            String poller,
            int iters,
            double p50,
            double p99,
            double mean,
            double opsPerSecond) {}

    public static void main(String[] args) throws Exception {
        String rxe = "10.77.0.2";
        String siw = "10.77.1.2";
        int iters = 1000;
        int warmup = 1000;
        int pipelined = 2000;
        Path csv = null;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--rxe" -> rxe = v;
                case "--siw" -> siw = v;
                case "--iters" -> iters = Integer.parseInt(v);
                case "--warmup" -> warmup = Integer.parseInt(v);
                case "--pipelined" -> pipelined = Integer.parseInt(v);
                case "--csv" -> csv = Path.of(v);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        int port = 7700 + (int) (ProcessHandle.current().pid() % 200);
        List<Row> rows = new ArrayList<>();
        for (Duration busy : new Duration[] {Duration.ZERO, Duration.ofMillis(1)}) {
            rows.add(measure(
                    new InetSocketAddress(InetAddress.getByName(rxe), port++),
                    AgentMode.OFF,
                    busy,
                    iters,
                    warmup,
                    pipelined));
            rows.add(measure(
                    new InetSocketAddress(InetAddress.getByName(rxe), port++),
                    AgentMode.ALWAYS,
                    busy,
                    iters,
                    warmup,
                    pipelined));
            rows.add(measure(
                    new InetSocketAddress(InetAddress.getByName(siw), port++),
                    AgentMode.WHERE_DEVICE_LACKS,
                    busy,
                    iters,
                    warmup,
                    pipelined));
        }
        print(rows, System.out);
        if (csv != null) {
            List<String> lines = new ArrayList<>();
            lines.add("device,by,poller,iters,p50_us,p99_us,mean_us,ops_per_s,p50_ratio_to_rxe_device");
            for (Row r : rows) {
                lines.add(String.format(
                        Locale.ROOT,
                        "%s,%s,%s,%d,%.1f,%.1f,%.1f,%.0f,%.2f",
                        r.device(),
                        r.by().name(),
                        r.poller(),
                        r.iters(),
                        r.p50(),
                        r.p99(),
                        r.mean(),
                        r.opsPerSecond(),
                        ratio(rows, r)));
            }
            Files.write(csv, lines);
        }
    }

    /** p50 of {@code r} over the p50 of rxe's own atomics with the same poller. */
    static double ratio(List<Row> rows, Row r) {
        return rows.stream()
                .filter(x -> x.by() == ConnectionCapabilities.Provider.DEVICE
                        && x.poller().equals(r.poller()))
                .findFirst()
                .map(x -> r.p50() / x.p50())
                .orElse(Double.NaN);
    }

    static void print(List<Row> rows, PrintStream out) {
        out.println("| device | FetchAdd by | poller | iters | p50 (us) | p99 (us) | mean (us) | ops/s pipelined "
                + "| p50 / rxe by device |");
        out.println("|---|---|---|---:|---:|---:|---:|---:|---:|");
        for (Row r : rows) {
            out.printf(
                    Locale.ROOT,
                    "| %s | %s | %s | %d | %.1f | %.1f | %.1f | %.0f | %.2f |%n",
                    r.device(),
                    r.by(),
                    r.poller(),
                    r.iters(),
                    r.p50(),
                    r.p99(),
                    r.mean(),
                    r.opsPerSecond(),
                    ratio(rows, r));
        }
    }

    static Row measure(
            InetSocketAddress server, AgentMode mode, Duration busyPoll, int iters, int warmup, int pipelined)
            throws Exception {
        ConnectionOptions options = ConnectionOptions.DEFAULTS
                .withTimeout(Duration.ofSeconds(120))
                .withAgent(mode)
                .withBusyPoll(busyPoll);
        try (RdmaServer s = RdmaServer.listen(server, options);
                RdmaConnection client = RdmaClient.connect(server, options);
                RdmaConnection served = s.accept(Duration.ofSeconds(120))) {
            if (served == null) {
                throw new IllegalStateException("no connection accepted at " + server);
            }
            ConnectionCapabilities.Provider by = client.capabilities().atomics();
            MemoryRegion counter =
                    served.protectionDomain().allocate(8, Set.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            for (int i = 0; i < warmup; i++) {
                client.fetchAdd(counter.address(), counter.rkey(), 1).get(60, TimeUnit.SECONDS);
            }
            long[] nanos = new long[iters];
            for (int i = 0; i < iters; i++) {
                long t0 = System.nanoTime();
                long old = client.fetchAdd(counter.address(), counter.rkey(), 1).get(60, TimeUnit.SECONDS);
                nanos[i] = System.nanoTime() - t0;
                if (old != warmup + i) {
                    throw new IllegalStateException("FetchAdd " + i + " returned " + old + ", not " + (warmup + i));
                }
            }
            long t0 = System.nanoTime();
            List<CompletableFuture<Long>> inFlight = new ArrayList<>(pipelined);
            for (int i = 0; i < pipelined; i++) {
                inFlight.add(client.fetchAdd(counter.address(), counter.rkey(), 1));
            }
            for (CompletableFuture<Long> f : inFlight) {
                f.get(120, TimeUnit.SECONDS);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long value = counter.segment().get(ValueLayout.JAVA_LONG, 0);
            if (value != (long) warmup + iters + pipelined) {
                throw new IllegalStateException("the counter reads " + value + ", not " + (warmup + iters + pipelined));
            }
            Arrays.sort(nanos);
            double mean = Arrays.stream(nanos).average().orElse(0) / 1000.0;
            Row row = new Row(
                    client.deviceName(),
                    by,
                    busyPoll.isZero() ? "sleeps" : "busy " + busyPoll.toMillis() + " ms",
                    iters,
                    nanos[iters / 2] / 1000.0,
                    nanos[(int) Math.min(iters - 1, Math.ceil(iters * 0.99) - 1)] / 1000.0,
                    mean,
                    pipelined / seconds);
            System.err.println("agent-atomics: " + row);
            return row;
        }
    }
}
