package org.panamardma.rdmatool;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.Device;
import org.panamardma.verbs.DeviceAttributes;
import org.panamardma.verbs.GidEntry;
import org.panamardma.verbs.PortAttributes;
import org.panamardma.verbs.RdmaCore;
import org.panamardma.verbs.RdmaException;

/**
 * The command-line tool {@code rdma-tool} ({@code java -jar rdma-tool/target/rdma-tool.jar COMMAND ...}):
 * <ul>
 * <li>{@code devinfo}: the RDMA devices as verbs-ffm sees them (transport, atomics, FLUSH and ATOMIC WRITE
 *     capabilities, limits, ports and their GIDs), like {@code ibv_devinfo};</li>
 * <li>{@code ping}: rping-like round trips with every byte verified ({@link Ping});</li>
 * <li>{@code perf}: perftest-style latency percentiles and bandwidth ({@link Perf});</li>
 * <li>{@code demo}: the seeds' operations end to end, in plain sentences ({@link Demo}).</li>
 * </ul>
 * Exit codes: 0 success, 1 a failure at run time (the message says which step), 2 bad usage.
 */
public final class RdmaTool {
    static final String USAGE = """
            usage: rdma-tool COMMAND [OPTIONS]
              devinfo                                  list RDMA devices and their capabilities
              ping --server [--bind ADDR] [--port P]   echo server (default port %d, all addresses)
              ping ADDR [--port P] [--size N] [--count N] [--timeout S]
                                                       round trips to a ping server, every byte verified
              perf --server [--bind ADDR] [--port P]   perftest-style server (default port %d)
              perf ADDR [--test T] [--size N | --all-sizes] [--iters N] [--warmup N] [--csv] [--port P] [--timeout S]
                                                       T: send_lat (default), write_lat, read_lat, atomic_lat, write_bw
              demo [ADDR] [--port P] [--clients N] [--increments N] [--timeout S]
                                                       server on ADDR (default 10.77.0.2: rxe1 in the testbed) and
                                                       clients in this process: atomics, commit pipeline, send/write/read
              help                                     this text
            """.formatted(Ping.DEFAULT_PORT, Perf.DEFAULT_PORT);

    private RdmaTool() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the exit code. Never throws: every failure becomes a message on {@code err}. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        String command = args.length == 0 ? "help" : args[0];
        String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        try {
            return switch (command) {
                case "devinfo" -> {
                    Args.parse("devinfo", rest, Set.of(), Set.of()).atMostPositional(0);
                    yield devinfo(out, err);
                }
                case "ping" -> ping(rest, out, err);
                case "perf" -> perf(rest, out, err);
                case "demo" -> demo(rest, out, err);
                case "help", "--help", "-h" -> {
                    out.print(USAGE);
                    yield 0;
                }
                default -> throw new UsageException("unknown command '" + command + "'");
            };
        } catch (UsageException e) {
            err.println("rdma-tool: " + e.getMessage());
            err.println("('rdma-tool help' lists the commands and their options)");
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("rdma-tool: interrupted");
            return 1;
        } catch (Exception | LinkageError e) {
            err.println("rdma-tool " + command + ": " + describe(e));
            return 1;
        }
    }

    /** One line a user can act on: the exception's message, with its kind when the message alone is vague. */
    static String describe(Throwable e) {
        String m = e.getMessage();
        if (e instanceof org.panamardma.verbs.cm.CmEventException ce) {
            return m + explainCm(ce);
        }
        if (e instanceof org.panamardma.verbs.cm.CmTimeoutException) {
            return m + " (the connection manager did not answer in time: is the address reachable over an RDMA "
                    + "device? In an emulated VM the first address resolution can take over 30 s: try --timeout 90)";
        }
        if (e instanceof RdmaException re && re.errno() == 111 /* ECONNREFUSED */) {
            return m + " (connection refused: is a server listening on that address and port?)";
        }
        if (e instanceof RdmaException re && re.errno() == 19 /* ENODEV */) {
            return m + " (this machine has no RDMA device: 'rdma-tool devinfo' lists them; the testbed VM has "
                    + "rxe0/rxe1 and siw0/siw1)";
        }
        return m == null ? e.toString() : m;
    }

    private static String explainCm(org.panamardma.verbs.cm.CmEventException e) {
        return switch (e.event().type()) {
            case REJECTED -> " (connection refused: is a server listening on that address and port?)";
            case UNREACHABLE -> " (the peer is unreachable)";
            case ADDR_ERROR ->
                " (the address cannot be resolved to a local RDMA device: is it reachable through an "
                        + "RDMA-capable interface?)";
            case ROUTE_ERROR -> " (no route to the peer over an RDMA device)";
            case CONNECT_ERROR -> " (the connection could not be established)";
            default -> "";
        };
    }

    private static Duration timeout(Args a, int dfltSeconds) throws UsageException {
        return Duration.ofSeconds(a.integer("timeout", dfltSeconds, 1, 3600));
    }

    static int ping(String[] rest, PrintStream out, PrintStream err) throws Exception {
        Args a = Args.parse("ping", rest, Set.of("bind", "port", "size", "count", "timeout"), Set.of("server"));
        int port = a.integer("port", Ping.DEFAULT_PORT, 1, 65535);
        Duration timeout = timeout(a, 60);
        if (a.has("server")) {
            a.atMostPositional(0);
            for (String o : List.of("size", "count")) {
                if (a.given(o)) {
                    throw new UsageException("ping: --" + o + " is the client's choice, not the server's");
                }
            }
            InetSocketAddress bind = Args.address("ping", a.string("bind", "0.0.0.0"), port);
            try (var server = Ping.serve(bind, timeout, out)) {
                out.printf(
                        "ping server listening on %s port %d (Ctrl-C to stop)%n",
                        bind.getAddress().getHostAddress(), port);
                Thread.currentThread().join();
            }
            return 0;
        }
        if (a.given("bind")) {
            throw new UsageException("ping: --bind is for the server (--server)");
        }
        InetSocketAddress server = Args.address("ping", onlyAddress("ping", a), port);
        int size = a.integer("size", 64, 1, Ping.MAX_SIZE);
        int count = a.integer("count", 10, 1, 1_000_000);
        Ping.Result r = Ping.run(server, size, count, timeout, out);
        return r.ok() ? 0 : 1;
    }

    private static String onlyAddress(String command, Args a) throws UsageException {
        if (a.positional().isEmpty()) {
            throw new UsageException(command + ": give the server's address (or --server to be one)");
        }
        a.atMostPositional(1);
        return a.positional().get(0);
    }

    static int perf(String[] rest, PrintStream out, PrintStream err) throws Exception {
        Args a = Args.parse(
                "perf",
                rest,
                Set.of("bind", "port", "test", "size", "iters", "warmup", "timeout"),
                Set.of("server", "all-sizes", "csv"));
        int port = a.integer("port", Perf.DEFAULT_PORT, 1, 65535);
        Duration timeout = timeout(a, 120);
        if (a.has("server")) {
            a.atMostPositional(0);
            for (String o : List.of("test", "size", "iters", "warmup")) {
                if (a.given(o)) {
                    throw new UsageException("perf: --" + o + " is the client's choice, not the server's");
                }
            }
            InetSocketAddress bind = Args.address("perf", a.string("bind", "0.0.0.0"), port);
            try (PerfServer server = PerfServer.start(bind, timeout, out)) {
                out.printf(
                        "perf server listening on %s port %d (Ctrl-C to stop)%n",
                        bind.getAddress().getHostAddress(), port);
                server.join();
            }
            return 1;
        }
        if (a.given("bind")) {
            throw new UsageException("perf: --bind is for the server (--server)");
        }
        InetSocketAddress server = Args.address("perf", onlyAddress("perf", a), port);
        Perf.Test test = Perf.Test.byName(a.string("test", "send_lat"));
        if (a.has("all-sizes") && a.given("size")) {
            throw new UsageException("perf: --size and --all-sizes exclude each other");
        }
        int size = a.integer("size", test == Perf.Test.WRITE_BW ? 65536 : 8, Perf.MIN_SIZE, Perf.MAX_SIZE);
        if (test == Perf.Test.ATOMIC_LAT && a.given("size") && size != 8) {
            throw new UsageException("perf: atomic_lat moves 8 bytes (64-bit atomics); --size must be 8 or absent");
        }
        int iters = a.integer("iters", test.defaultIters(), 2, 100_000_000);
        int warmup = a.integer("warmup", 0, 0, 100_000_000);
        boolean csv = a.has("csv");
        if (!csv) {
            out.printf(
                    "perf %s to %s port %d, %d iterations per size%n",
                    test.cliName(), server.getAddress().getHostAddress(), port, iters);
        }
        List<Perf.Result> results = Perf.run(server, test, size, a.has("all-sizes"), iters, warmup, timeout);
        print(results, csv, out);
        return 0;
    }

    /** perftest's table (t_typical = p50), or the CSV lines. */
    static void print(List<Perf.Result> results, boolean csv, PrintStream out) {
        if (csv) {
            out.println(Perf.CSV_HEADER);
            results.forEach(r -> out.println(r.csv()));
            return;
        }
        if (results.isEmpty()) {
            return;
        }
        if (results.get(0).latency() == null) {
            out.printf(" %8s %12s %20s %16s%n", "#bytes", "#iterations", "BW average[MB/sec]", "MsgRate[Mpps]");
            for (Perf.Result r : results) {
                out.printf(Locale.ROOT, " %8d %12d %20.2f %16.6f%n", r.size(), r.iters(), r.bwMBps(), r.msgRateMpps());
            }
        } else {
            out.printf(
                    " %8s %12s %12s %12s %16s %12s %12s%n",
                    "#bytes",
                    "#iterations",
                    "t_min[usec]",
                    "t_max[usec]",
                    "t_typical[usec]",
                    "t_avg[usec]",
                    "t_99[usec]");
            for (Perf.Result r : results) {
                LatencyStats s = r.latency();
                out.printf(
                        Locale.ROOT,
                        " %8d %12d %12.2f %12.2f %16.2f %12.2f %12.2f%n",
                        r.size(),
                        r.iters(),
                        s.minUs(),
                        s.maxUs(),
                        s.p50Us(),
                        s.avgUs(),
                        s.p99Us());
            }
            out.println(" (one-way latency: ping-pong round trips / 2 for send_lat and write_lat, as perftest)");
        }
    }

    static int demo(String[] rest, PrintStream out, PrintStream err) throws Exception {
        Args a = Args.parse("demo", rest, Set.of("port", "clients", "increments", "timeout"), Set.of());
        a.atMostPositional(1);
        String host = a.positional().isEmpty() ? "10.77.0.2" : a.positional().get(0);
        InetSocketAddress address = Args.address("demo", host, a.integer("port", Demo.DEFAULT_PORT, 1, 65535));
        int clients = a.integer("clients", 4, 2, 64);
        int increments = a.integer("increments", 25, 1, 100_000);
        Demo.Report r = Demo.run(address, clients, increments, timeout(a, 90), out);
        return r.ok() ? 0 : 1;
    }

    static int devinfo(PrintStream out, PrintStream err) {
        try {
            List<Device> devices = Device.list();
            out.println(RdmaCore.describe());
            out.printf(
                    "library features: %s%n",
                    Arrays.stream(RdmaCore.Feature.values())
                            .map(f -> f.description() + " "
                                    + (f.isAvailable() ? "yes" : "no (rdma-core " + f.since() + ")"))
                            .collect(java.util.stream.Collectors.joining(", ")));
            if (devices.isEmpty()) {
                out.println("no RDMA devices");
                return 1;
            }
            for (Device d : devices) {
                out.printf(
                        "%s: %s transport, node %s, GUID %s%n",
                        d.name(), d.transportType(), d.nodeType(), guid(d.guid()));
                try (Context ctx = Context.open(d.name())) {
                    DeviceAttributes a = ctx.attributes();
                    out.printf(
                            "  atomics %-6s  FLUSH global %-3s persistent %-3s  ATOMIC WRITE %-3s  (cap_flags_ex 0x%x)%n",
                            a.atomicCapability(),
                            yes(a.supportsFlushGlobal()),
                            yes(a.supportsFlushPersistent()),
                            yes(a.supportsAtomicWrite()),
                            a.deviceCapFlagsEx());
                    // what the connection layer offers on top: RFC 7306's agent where the device has nothing
                    out.printf(
                            "  RFC 7306: atomics %s, immediate data %s%n",
                            a.supportsAtomics() ? "by device" : "by agent (ConnectionOptions.withAgent on both ends)",
                            d.transportType() != org.panamardma.verbs.TransportType.IWARP
                                    ? "by device"
                                    : "by agent (ConnectionOptions.withAgent on both ends)");
                    out.printf(
                            "  limits: %d QPs x %d WRs, %d SGEs (%d for READ), %d CQEs, %d MRs, %d rd_atom%n",
                            a.maxQp(), a.maxQpWr(), a.maxSge(), a.maxSgeRd(), a.maxCqe(), a.maxMr(), a.maxQpRdAtomic());
                    for (int port = 1; port <= a.physicalPortCount(); port++) {
                        PortAttributes p = ctx.queryPort(port);
                        out.printf(
                                "  port %d: %s, %s link, active MTU %d%n",
                                port, p.state(), p.linkLayer(), p.activeMtu().bytes());
                        for (GidEntry g : ctx.gidTable(port)) {
                            out.printf(
                                    "    gid %2d %-8s %s (%s)%n",
                                    g.index(),
                                    g.type(),
                                    g.gid(),
                                    g.gid().toInetAddress().getHostAddress());
                        }
                    }
                }
            }
            return 0;
        } catch (RdmaException e) {
            err.println(e.getMessage());
            return 1;
        }
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }

    private static String guid(long guid) {
        String hex = String.format("%016x", guid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }
}
