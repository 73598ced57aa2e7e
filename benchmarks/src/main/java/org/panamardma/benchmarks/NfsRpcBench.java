package org.panamardma.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Mount3;
import org.panamardma.nfs.MountClient;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.Portmap;
import org.panamardma.nfs.PortmapClient;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.rpc.RdmaRpcTransport;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.rpcrdma.client.ChunkExposure;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;

/**
 * RPC figures against the kernel's NFS server (knfsd) in the testbed guest, one transport per run, written in the
 * CSV of {@code perftest/compare-in-guest.sh} ({@code impl,test,size,iters,p50_us,p99_us,avg_us,bw_MBps}):
 * <ul>
 *   <li>{@code rpc_null}: NFSv3 NULL round trips (RFC 1813 section 3.3.0), the cost of one RPC and nothing else.
 *       A round trip, not halved: compare it with twice perftest's ib_send_lat, which is one-way;</li>
 *   <li>{@code nfs_write}: a file of {@code --file-size} bytes (1 MiB; 64 MiB and more for the comparison with
 *       the kernel client) written to the scratch file with UNSTABLE WRITEs of {@code --io-size} bytes (256 KiB),
 *       then one COMMIT inside the timed span, so the figure includes getting the data to stable storage;
 *       throughput in MB/s of 2^20 bytes (perftest's unit);</li>
 *   <li>{@code nfs_read}: the same file read back with READs of the same size, every byte of the pattern the
 *       writes put there checked (a benchmark that moved wrong bytes measures nothing).</li>
 * </ul>
 * With {@code --in-flight N} (1) N threads share the calls of each pass, so N calls are outstanding at once on the
 * one transport; the tests are then named {@code nfs_write_qdN} and {@code nfs_read_qdN}. A list ({@code 1,4})
 * measures each setting in turn in this one JVM, as a long-running client serves both loads: the second setting's
 * warm-up then compiles only what the first did not need. Under the testbed's emulation a JVM of its own per setting
 * never got quiet with 4 in flight (150 passes, the C2 compiler still working through the client's code: one C2
 * compilation takes about a second there). {@code --between COMMAND} runs {@code bash -c COMMAND _ DONE NEXT}
 * between two settings ({@code DONE} and {@code NEXT} their numbers in flight), its output on standard error: the
 * harness's kernel-client passes beside each setting ({@code perftest/compare-in-guest.sh}).
 * Before the timed WRITE and READ passes, passes of the first {@code --warm-size} bytes (16 MiB) run until the JIT is
 * quiet ({@link Warm}: the last passes that make as many calls as a timed phase, at least three, with at most
 * {@code --jit-quiet} (3) compilations or the JIT compiling at most {@code --jit-cpu} (2) percent of the JVM's CPU
 * time, at most {@code --warm-max} (150) passes); standard error says how many it
 * took, and for each timed phase the compilations it saw (and which methods) and where the CPU went per call
 * ({@link CpuSpan}: the machine's split and this JVM's threads').
 * knfsd, not a Java server, answers on purpose: it is the same server for both transports and the one deployed.
 * The export is the one {@code nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh} makes.
 *
 * <p>Why 256 KiB per call: over RDMA the guest's knfsd returns at most 512 KiB per READ, and a WRITE whose Read
 * chunk exceeded its maximum payload made the 6.12 guest kernel oops (see KnfsdRdmaDeviceTests); a client keeps to
 * the server's limits, as Linux's does (it mounts with rsize=wsize=512 KiB here). Both transports use the same size.
 *
 * <p>Usage: {@code NfsRpcBench --transport tcp|rdma --server IP [--export DIR] [--iters N] [--warmup N]
 * [--io-iters N] [--io-size BYTES] [--file-size BYTES] [--in-flight N[,N...]] [--between COMMAND] [--no-null]
 * [--busy-poll MICROS]
 * [--exposure auto|windows|per-call] [--warm-size BYTES] [--jit-quiet N] [--jit-cpu PERCENT] [--warm-max N]}.
 * {@code --busy-poll} (RDMA only) runs the client's poller in the latency mode
 * ({@code RpcRdmaClientOptions.busyPoll}); its rows are named {@code RPC-RDMA-BUSY}. {@code --exposure
 * windows|per-call} (RDMA only) chooses how the client exposes chunks ({@code RpcRdmaClientOptions.exposure}, default
 * {@code auto}); its rows are named {@code RPC-RDMA-MW} and {@code RPC-RDMA-REG}.
 */
public final class NfsRpcBench {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final OpaqueAuth ROOT = Nfs3Client.authSys("panama-rdma-bench", 0, 0);
    private static final int PATTERN_MODULUS = 251;
    /** The default file size: what one READ or WRITE iteration moves. */
    private static final long DEFAULT_FILE_SIZE = 1 << 20;

    private NfsRpcBench() {}

    /** Opens the transport to knfsd's NFS service: TCP 2049, or RPC-over-RDMA on 20049 (RFC 8267 section 3). */
    @FunctionalInterface
    interface TransportFactory {
        RpcTransport open(String server, int maxIo) throws IOException, InterruptedException;
    }

    public static void main(String[] args) throws Exception {
        String transport = null, server = null, export = "/srv/panama-nfs";
        int iters = 1000, warmup = -1, ioIters = 32, ioSize = 256 << 10;
        int[] inFlight = {1};
        String between = null;
        long fileSize = DEFAULT_FILE_SIZE;
        boolean nullCalls = true;
        long warmSize = Warm.DEFAULT.size();
        int jitQuiet = (int) Warm.DEFAULT.quiet().compilations(), warmMax = Warm.DEFAULT.maxPasses();
        double jitCpuPercent = 100 * Warm.DEFAULT.quiet().compilerShare();
        Duration busyPoll = Duration.ZERO;
        ChunkExposure exposure = ChunkExposure.AUTO;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--transport" -> transport = args[++i];
                case "--server" -> server = args[++i];
                case "--export" -> export = args[++i];
                case "--iters" -> iters = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--io-iters" -> ioIters = Integer.parseInt(args[++i]);
                case "--io-size" -> ioSize = Integer.parseInt(args[++i]);
                case "--file-size" -> fileSize = Long.parseLong(args[++i]);
                case "--in-flight" ->
                    inFlight = Arrays.stream(args[++i].split(",", -1))
                            .mapToInt(Integer::parseInt)
                            .toArray();
                case "--between" -> between = args[++i];
                case "--no-null" -> nullCalls = false;
                case "--warm-size" -> warmSize = Long.parseLong(args[++i]);
                case "--jit-quiet" -> jitQuiet = Integer.parseInt(args[++i]);
                case "--warm-max" -> warmMax = Integer.parseInt(args[++i]);
                case "--jit-cpu" -> jitCpuPercent = Double.parseDouble(args[++i]);
                case "--busy-poll" -> busyPoll = Duration.ofNanos(1000L * Long.parseLong(args[++i]));
                case "--exposure" ->
                    exposure = switch (args[++i]) {
                        case "auto" -> ChunkExposure.AUTO;
                        case "windows" -> ChunkExposure.MEMORY_WINDOWS;
                        case "per-call" -> ChunkExposure.PER_CALL_REGISTRATION;
                        default ->
                            throw new IllegalArgumentException("--exposure auto|windows|per-call, not " + args[i]);
                    };
                default ->
                    throw new IllegalArgumentException("unknown argument " + a + "; usage: "
                            + "--transport tcp|rdma --server IP [--export DIR] [--iters N] [--warmup N] [--io-iters N] "
                            + "[--io-size BYTES] [--file-size BYTES] [--in-flight N[,N...]] [--between COMMAND] [--no-null] [--busy-poll MICROS] "
                            + "[--exposure auto|windows|per-call] [--warm-size BYTES] [--jit-quiet N] [--jit-cpu PERCENT] "
                            + "[--warm-max N]");
            }
        }
        if (transport == null || server == null) {
            throw new IllegalArgumentException("--transport and --server are required");
        }
        if (warmup < 0) {
            warmup = iters;
        }
        if (warmSize < ioSize || jitQuiet < 0 || !(jitCpuPercent >= 0 && jitCpuPercent <= 100) || warmMax < 3) {
            throw new IllegalArgumentException("--warm-size must be at least --io-size (" + ioSize
                    + "), --jit-quiet at least 0, --jit-cpu 0-100, --warm-max at least 3");
        }
        Warm warm = new Warm(warmSize, new JitWatch.Quiet(jitQuiet, jitCpuPercent / 100), warmMax);
        if (fileSize <= 0 || fileSize % ioSize != 0 || Arrays.stream(inFlight).anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException(
                    "--file-size must be a positive multiple of --io-size (" + ioSize + "), --in-flight at least 1");
        }
        TransportFactory factory = switch (transport) {
            case "tcp" ->
                (host, maxIo) -> TcpRpcTransport.connect(new InetSocketAddress(host, Nfs3.TCP_PORT), maxIo + 64 * 1024);
            case "rdma" -> {
                Duration poll = busyPoll;
                ChunkExposure e = exposure;
                yield (host, maxIo) -> openRdma(host, poll, e);
            }
            default -> throw new IllegalArgumentException("transport must be tcp or rdma, not " + transport);
        };
        if ((!busyPoll.isZero() || exposure != ChunkExposure.AUTO) && !transport.equals("rdma")) {
            throw new IllegalArgumentException("--busy-poll and --exposure are modes of the RDMA transport");
        }
        String impl = "RPC-" + transport.toUpperCase(Locale.ROOT) + (busyPoll.isZero() ? "" : "-BUSY")
                + switch (exposure) {
                    case AUTO -> "";
                    case MEMORY_WINDOWS -> "-MW";
                    case PER_CALL_REGISTRATION -> "-REG";
                };
        for (int k = 0; k < inFlight.length; k++) {
            if (k > 0 && between != null) {
                runBetween(between, inFlight[k - 1], inFlight[k]);
            }
            run(
                    System.out,
                    impl,
                    factory,
                    server,
                    export,
                    nullCalls && k == 0 ? iters : 0, // NULL round trips once
                    warmup,
                    ioIters,
                    ioSize,
                    fileSize,
                    inFlight[k],
                    warm,
                    System.err);
        }
    }

    /** {@code bash -c command _ done next}, its output on standard error; fails the run if it fails. */
    private static void runBetween(String command, int done, int next) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", "-c", command, "_", Integer.toString(done), Integer.toString(next))
                .redirectErrorStream(true)
                .start();
        p.getInputStream().transferTo(System.err); // standard output is the rows' CSV
        int rc = p.waitFor();
        if (rc != 0) {
            throw new IOException("--between command exited with " + rc + " after " + done + " in flight");
        }
    }

    static RpcTransport openRdma(String host, Duration busyPoll, ChunkExposure exposure)
            throws IOException, InterruptedException {
        return RdmaRpcTransport.connect(
                new InetSocketAddress(host, Nfs3.RDMA_PORT),
                RpcRdmaClientOptions.DEFAULTS
                        .withTimeouts(TIMEOUT, TIMEOUT)
                        .withBusyPoll(busyPoll)
                        .withExposure(exposure));
    }

    static void run(
            PrintStream out,
            String impl,
            TransportFactory factory,
            String server,
            String export,
            int iters,
            int warmup,
            int ioIters,
            int ioSize,
            long fileSize,
            int inFlight,
            Warm warm,
            PrintStream log)
            throws Exception {
        FileHandle3 root = mount(server, export);
        try (RpcTransport transport = factory.open(server, ioSize);
                Arena arena = Arena.ofShared(); // shared: the RDMA transport's poller thread touches it
                JitWatch jit = JitWatch.start();
                Callers callers = new Callers(inFlight)) {
            Nfs3Client nfs = new Nfs3Client(transport, ROOT, TIMEOUT);
            FileHandle3 scratch = nfs.lookup(root, "write-target").handle();

            if (iters > 0) {
                for (int i = 0; i < warmup; i++) {
                    nfs.ping();
                }
                long[] rtt = new long[iters];
                for (int i = 0; i < iters; i++) {
                    long t0 = System.nanoTime();
                    nfs.ping();
                    rtt[i] = System.nanoTime() - t0;
                }
                out.println(latencyLine(impl, "rpc_null", 0, rtt));
            }

            if (ioIters == 0) {
                return; // NULL round trips only
            }
            String suffix = inFlight > 1 ? "_qd" + inFlight : "";
            MemorySegment file = arena.allocate(fileSize, 4096);
            for (long i = 0; i < fileSize; i++) {
                file.set(ValueLayout.JAVA_BYTE, i, (byte) (i % PATTERN_MODULUS));
            }
            MemorySegment back = arena.allocate(fileSize, 4096);
            Pass write = (off, len) -> {
                long written = nfs.write(scratch, off, file.asSlice(off, len), StableHow.UNSTABLE)
                        .count();
                if (written != len) {
                    throw new IOException("WRITE wrote " + written + " of " + len + " bytes at " + off);
                }
            };
            Pass read = (off, len) -> {
                long n = nfs.readFully(scratch, off, back.asSlice(off, len), len);
                if (n != len) {
                    throw new IOException("READ returned " + n + " of " + len + " bytes at " + off);
                }
            };
            // the warm-up: the first warm.size() bytes written, committed and read back (and checked) until the JIT
            // is quiet over as many calls as the timed passes make, the calls in flight as in the timed passes, and
            // the CPU accounting around them as there (its code must not compile in the timed passes either)
            long warmBytes = Math.min(fileSize, warm.size() / ioSize * ioSize);
            int window = (int) Math.max(3, Math.ceilDiv(ioIters * fileSize, warmBytes));
            JitWatch.Warmed warmed = jit.warmUp(warm.quiet(), window, warm.maxPasses(), () -> {
                CpuSpan accounting = new CpuSpan();
                accounting.begin();
                callers.run(warmBytes, ioSize, write);
                nfs.commit(scratch, 0, 0);
                accounting.end();
                back.fill((byte) 0);
                accounting.begin();
                callers.run(warmBytes, ioSize, read);
                accounting.end();
                checkPattern(back.asSlice(0, warmBytes));
                var _ = accounting.perCall(1);
            });
            log.println(impl + " " + suffix + " warm-up: " + warmed + ", of " + (warmBytes >> 20) + " MiB");
            long calls = ioIters * (fileSize / ioSize);
            long before = jit.compilations();
            CpuSpan cpu = new CpuSpan();
            cpu.begin(); // its readings of /proc stay outside the timed span
            long t0 = System.nanoTime();
            for (int i = 0; i < ioIters; i++) {
                callers.run(fileSize, ioSize, write);
            }
            nfs.commit(scratch, 0, 0);
            long wrote = System.nanoTime() - t0;
            cpu.end();
            out.println(bandwidthLine(impl, "nfs_write" + suffix, fileSize, ioIters, wrote));
            log.println(impl + " nfs_write" + suffix + ": " + (jit.compilations() - before)
                    + " compilations during the timed passes; CPU: " + cpu.perCall(calls));
            log.println(impl + " nfs_write" + suffix + " compiled: " + compiled(jit.compiledSince(before)));

            before = jit.compilations();
            cpu = new CpuSpan();
            long elapsed = 0;
            for (int i = 0; i < ioIters; i++) {
                back.fill((byte) 0); // outside the timed span, as is the check
                cpu.begin();
                long start = System.nanoTime();
                callers.run(fileSize, ioSize, read);
                elapsed += System.nanoTime() - start;
                cpu.end();
                checkPattern(back);
            }
            out.println(bandwidthLine(impl, "nfs_read" + suffix, fileSize, ioIters, elapsed));
            log.println(impl + " nfs_read" + suffix + ": " + (jit.compilations() - before)
                    + " compilations during the timed passes; CPU: " + cpu.perCall(calls));
            log.println(impl + " nfs_read" + suffix + " compiled: " + compiled(jit.compiledSince(before)));
        }
    }

    /**
     * How the WRITE and READ passes are warmed up: passes of the first {@code size} bytes of the file (written,
     * committed, read and checked) until the last passes, as many calls as the timed passes make (at least three
     * passes), were quiet by {@code quiet} (few compilations, or little compiling time: {@link JitWatch#warmUp}), at
     * most {@code maxPasses}. The figures are then a long-running client's, not its
     * JIT's: the kernel client it is compared with has none.
     */
    record Warm(long size, JitWatch.Quiet quiet, int maxPasses) {
        static final Warm DEFAULT = new Warm(16L << 20, new JitWatch.Quiet(3, 0.02), 150);
    }

    /** One call of a pass: {@code length} bytes at {@code offset}. */
    @FunctionalInterface
    private interface Pass {
        void call(long offset, int length) throws IOException, InterruptedException;
    }

    /**
     * The threads that make the calls of a pass: with {@code inFlight} > 1, that many, made once per run and kept, as
     * a long-running client's are (a pool per pass started and ended {@code inFlight} threads in every warm-up pass
     * and every timed one); with 1, the calling thread.
     */
    private static final class Callers implements AutoCloseable {
        private final int inFlight;
        private final ExecutorService pool;

        Callers(int inFlight) {
            this.inFlight = inFlight;
            this.pool = inFlight > 1
                    ? Executors.newFixedThreadPool(
                            inFlight,
                            Thread.ofPlatform().name("nfs-bench-caller-", 0).factory())
                    : null;
        }

        /**
         * The whole file in calls of {@code ioSize} bytes; with {@code inFlight} > 1 the pool's threads take the
         * calls in turn, so that many are outstanding on the one transport (which is thread-safe).
         */
        void run(long fileSize, int ioSize, Pass pass) throws Exception {
            long calls = fileSize / ioSize;
            if (pool == null) {
                for (long c = 0; c < calls; c++) {
                    pass.call(c * ioSize, ioSize);
                }
                return;
            }
            AtomicLong next = new AtomicLong();
            List<Future<Void>> workers = new ArrayList<>();
            for (int w = 0; w < inFlight; w++) {
                workers.add(pool.submit(() -> {
                    for (long c; (c = next.getAndIncrement()) < calls; ) {
                        pass.call(c * ioSize, ioSize);
                    }
                    return null;
                }));
            }
            for (Future<Void> f : workers) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception x ? x : e;
                }
            }
        }

        @Override
        public void close() {
            if (pool != null) {
                pool.close();
            }
        }
    }

    /** What a timed span compiled, for the log: C2's methods first (the costly ones), at most 80 named. */
    private static String compiled(List<String> methods) {
        List<String> c2First = new ArrayList<>(methods);
        c2First.sort(Comparator.comparing((String m) -> !m.startsWith("4")));
        String named = String.join(", ", c2First.subList(0, Math.min(80, c2First.size())));
        return named + (c2First.size() > 80 ? " and " + (c2First.size() - 80) + " more" : "");
    }

    /** Every byte of the pattern the writes put in the file, back where it belongs. */
    private static void checkPattern(MemorySegment back) throws IOException {
        for (long i = 0; i < back.byteSize(); i++) {
            if (back.get(ValueLayout.JAVA_BYTE, i) != (byte) (i % PATTERN_MODULUS)) {
                throw new IOException("READ returned a wrong byte at " + i);
            }
        }
    }

    private static FileHandle3 mount(String server, String export) throws IOException, InterruptedException {
        int mountPort;
        try (TcpRpcTransport pmap = TcpRpcTransport.connect(server, Portmap.PORT)) {
            mountPort = new PortmapClient(pmap, TIMEOUT).getPort(Mount3.PROGRAM, Mount3.VERSION, Portmap.IPPROTO_TCP);
        }
        try (TcpRpcTransport mount = TcpRpcTransport.connect(server, mountPort)) {
            return new MountClient(mount, ROOT, TIMEOUT).mount(export).root();
        }
    }

    static String latencyLine(String impl, String test, int size, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double avg = Arrays.stream(sorted).average().orElse(0);
        return String.format(
                Locale.ROOT,
                "%s,%s,%d,%d,%.2f,%.2f,%.2f,",
                impl,
                test,
                size,
                nanos.length,
                sorted[sorted.length / 2] / 1e3,
                sorted[(int) Math.min(sorted.length - 1L, sorted.length * 99L / 100)] / 1e3,
                avg / 1e3);
    }

    static String bandwidthLine(String impl, String test, long size, int iters, long nanos) {
        double mbps = (double) size * iters / (1 << 20) / (nanos / 1e9);
        return String.format(Locale.ROOT, "%s,%s,%d,%d,,,,%.6f", impl, test, size, iters, mbps);
    }
}
