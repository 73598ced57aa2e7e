package org.panamardma.rdmatool;

import static org.panamardma.rdmatool.PerfLoops.readLatency;
import static org.panamardma.rdmatool.PerfLoops.sendLatency;
import static org.panamardma.rdmatool.PerfLoops.writeBandwidth;
import static org.panamardma.rdmatool.PerfLoops.writeLatency;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.cm.StreamStartProbe;

/**
 * {@code rdma-tool perf}: perftest-style latency and bandwidth over one rdma_cm connection, on the bare typed verbs
 * (post, then busy-poll the CQ or the buffer; no futures, nothing allocated per operation).
 *
 * <p>The tests follow perftest's, so that their figures can stand side by side:
 * <ul>
 * <li>{@code send_lat} (ib_send_lat): ping-pong of SENDs. The client posts a SEND and spins on its CQ for the
 *     server's reply; the server spins for the client's message and SENDs back.</li>
 * <li>{@code write_lat} (ib_write_lat, {@code run_iter_lat_write}): ping-pong of RDMA WRITEs. Each side writes
 *     {@code size} bytes into the other's buffer, the last byte holding the iteration count (mod 256), and spins on
 *     the last byte of its own buffer until the peer's write with the next count lands.</li>
 * <li>{@code read_lat} (ib_read_lat): the client alone, one RDMA READ at a time, spinning on the CQ.</li>
 * <li>{@code atomic_lat} (ib_atomic_lat, default FETCH_AND_ADD): as read_lat with 8-byte FetchAdd.</li>
 * <li>{@code write_bw} (ib_write_bw): the client keeps up to {@value #TX_DEPTH} RDMA WRITEs outstanding (perftest's
 *     default tx_depth), signalling every {@value #CQ_MOD}th (perftest's cq_mod) and the last.</li>
 * </ul>
 *
 * <p>Figures, as perftest's {@code print_report_lat}: the client stamps the time before posting each iteration; the
 * samples are the {@code iters - 1} differences of consecutive stamps, divided by 2 for the ping-pong tests
 * (send_lat, write_lat: perftest's {@code rtt_factor}, so one-way latency) and by 1 for read_lat and atomic_lat.
 * p50 is perftest's {@code t_typical} (its {@code get_median}), p99 the nearest-rank 99th percentile, avg the mean.
 * write_bw as perftest's {@code print_report_bw}: {@code size * iters} bytes over the time from the first post to
 * the last completion, in MB/s with MB = 2^20 bytes (perftest's default unit), and the message rate in Mpps.
 * For the latency tests bw_MBps is {@code size} bytes per sample time (informative only).
 *
 * <p>Differences from perftest: no inline data (perftest inlines small messages by default, so expect our
 * small-size latencies a little above its figures on hardware), one connection for all sizes, buffers of the
 * largest size, and a final SEND from the client telling the server the run is over.
 *
 * <p>This class is the tests' vocabulary and the client ({@link #run}); the server is {@link PerfServer}, the
 * connect and accept private data {@link PerfRequest}, one side's verbs resources {@link PerfEndpoint} and the
 * measured loops {@link PerfLoops}.
 */
public final class Perf {
    /** perftest's default port. */
    public static final int DEFAULT_PORT = 18515;

    public static final int MIN_SIZE = 1;
    public static final int MAX_SIZE = 65536;
    static final int TX_DEPTH = 128;
    static final int CQ_MOD = 100;
    static final int RX_DEPTH = 16;
    /**
     * Client connections whose first stream start probe went unanswered, so that a second one was sent (the siw
     * race {@link StreamStartProbe} describes, met and overcome): the tests report it.
     */
    static final AtomicLong STREAM_STARTS_REPROBED = new AtomicLong();

    private Perf() {}

    /** The tests, by their command-line name. */
    public enum Test {
        SEND_LAT("send_lat", 2),
        WRITE_LAT("write_lat", 2),
        READ_LAT("read_lat", 1),
        ATOMIC_LAT("atomic_lat", 1),
        WRITE_BW("write_bw", 0);

        private final String cliName;
        /** perftest's rtt_factor; 0 for the bandwidth test. */
        private final int rttFactor;

        Test(String cliName, int rttFactor) {
            this.cliName = cliName;
            this.rttFactor = rttFactor;
        }

        public String cliName() {
            return cliName;
        }

        public boolean isLatency() {
            return rttFactor != 0;
        }

        /** perftest's default iteration count: 1000 for latency, 5000 for bandwidth. */
        public int defaultIters() {
            return isLatency() ? 1000 : 5000;
        }

        public static Test byName(String name) throws UsageException {
            for (Test t : values()) {
                if (t.cliName.equals(name)) {
                    return t;
                }
            }
            throw new UsageException(
                    "perf: unknown test '" + name + "' (send_lat, write_lat, read_lat, atomic_lat, " + "write_bw)");
        }
    }

    /** One size's figures. {@code latency} is null for write_bw; {@code msgRateMpps} 0 for the latency tests. */
    public record Result(Test test, int size, int iters, LatencyStats latency, double bwMBps, double msgRateMpps) {
        /** {@code test,size,iters,p50_us,p99_us,avg_us,bw_MBps}: empty p50/p99 for write_bw. */
        public String csv() {
            if (latency == null) {
                double avgUs = bwMBps == 0 ? 0 : size / (bwMBps * 1048576.0) * 1e6;
                return String.format(Locale.ROOT, "%s,%d,%d,,,%.3f,%.6f", test.cliName(), size, iters, avgUs, bwMBps);
            }
            return String.format(
                    Locale.ROOT,
                    "%s,%d,%d,%.3f,%.3f,%.3f,%.6f",
                    test.cliName(),
                    size,
                    iters,
                    latency.p50Us(),
                    latency.p99Us(),
                    latency.avgUs(),
                    bwMBps);
        }
    }

    public static final String CSV_HEADER = "test,size,iters,p50_us,p99_us,avg_us,bw_MBps";

    /** The sizes to run: {@code size} alone, or (all) the powers of two from 8 B to 64 KiB; atomics are 8 B. */
    public static List<Integer> sizes(Test test, boolean all, int size) {
        List<Integer> sizes = new ArrayList<>();
        if (test == Test.ATOMIC_LAT) {
            sizes.add(8);
        } else if (all) {
            for (int s = 8; s <= MAX_SIZE; s *= 2) {
                sizes.add(s);
            }
        } else {
            sizes.add(size);
        }
        return sizes;
    }

    /**
     * Runs {@code test} against the perf server at {@code server} at {@code size}, or with {@code allSizes} at every
     * size of {@link #sizes}, and returns the figures (one per size).
     *
     * @param timeout for connecting and for each size's run
     */
    public static List<Result> run(
            InetSocketAddress server, Test test, int size, boolean allSizes, int iters, Duration timeout)
            throws RdmaException {
        return run(server, test, size, allSizes, iters, 0, timeout);
    }

    /**
     * Rounds a warm-up count up to a multiple of 256: write_lat's ping-pong spins on a byte that counts writes, so a
     * warm-up that leaves it at 0 lets the measured run at the same size start from a clean count.
     */
    static int warmupIterations(int requested) {
        return requested <= 0 ? 0 : (requested + 255) / 256 * 256;
    }

    /**
     * As {@link #run(InetSocketAddress, Test, int, boolean, int, Duration)}, after {@code warmup} unmeasured
     * iterations (rounded up to a multiple of 256) at the first size, on both sides. perftest has no warm-up: a C
     * loop runs at full speed from the first iteration, while a JVM interprets the loop until its JIT has compiled
     * it; a warm-up measures the steady state a long-running service sees (say which one you report).
     */
    public static List<Result> run(
            InetSocketAddress server, Test test, int size, boolean allSizes, int iters, int warmup, Duration timeout)
            throws RdmaException {
        warmup = warmupIterations(warmup);
        if (iters < 2) {
            throw new IllegalArgumentException("iters must be at least 2 (latency samples are differences)");
        }
        if (size < MIN_SIZE || size > MAX_SIZE) {
            throw new IllegalArgumentException("size must be " + MIN_SIZE + ".." + MAX_SIZE + ": " + size);
        }
        // the server derives the same list from (test, size, allSizes) in the request
        List<Integer> sizes = sizes(test, allSizes, size);
        int maxSize = sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
        int minSize = sizes.stream().mapToInt(Integer::intValue).min().orElseThrow();
        int warmupIterations = warmup;
        try (EventChannel channel = EventChannel.create();
                PerfEndpoint ep = connect(
                        channel,
                        server,
                        timeout,
                        maxSize,
                        test == Test.WRITE_BW ? TX_DEPTH : RX_DEPTH,
                        mr -> new PerfRequest(
                                test, iters, minSize, maxSize, allSizes, mr.address(), mr.rkey(), warmupIterations))) {
            CmId id = ep.id;
            Duration wait = CmConnector.eventWait(timeout);
            CmEvent established = id.expect(CmEventType.ESTABLISHED, wait);
            ByteBuffer reply = ByteBuffer.wrap(established.privateData());
            if (reply.remaining() < 16 || reply.get(0) != PerfRequest.MAGIC_REPLY) {
                throw new RdmaException(
                        "perf: " + server + " is not an rdma-tool perf server (its accept carried no "
                                + "buffer description)",
                        71 /* EPROTO */);
            }
            ep.remoteAddress = reply.getLong(4);
            ep.remoteRkey = reply.getInt(12);
            if (StreamStartProbe.needed(id.context()) && StreamStartProbe.possible(established)) {
                ep.confirmStreamStart(System.nanoTime() + timeout.toNanos());
            }
            if (warmup > 0) {
                long deadline = System.nanoTime() + timeout.toNanos();
                int n = sizes.get(0);
                switch (test) {
                    case SEND_LAT -> sendLatency(ep, n, warmup, false, deadline);
                    case WRITE_LAT -> writeLatency(ep, n, warmup, false, deadline);
                    case READ_LAT -> readLatency(ep, n, warmup, false, deadline);
                    case ATOMIC_LAT -> readLatency(ep, n, warmup, true, deadline);
                    case WRITE_BW -> writeBandwidth(ep, n, warmup, deadline);
                }
                awaitJit(timeout);
            }
            List<Result> results = new ArrayList<>();
            for (int n : sizes) {
                long deadline = System.nanoTime() + timeout.toNanos();
                results.add(
                        switch (test) {
                            case SEND_LAT -> latencyResult(test, n, iters, sendLatency(ep, n, iters, false, deadline));
                            case WRITE_LAT ->
                                latencyResult(test, n, iters, writeLatency(ep, n, iters, false, deadline));
                            case READ_LAT -> latencyResult(test, n, iters, readLatency(ep, n, iters, false, deadline));
                            case ATOMIC_LAT -> latencyResult(test, n, iters, readLatency(ep, n, iters, true, deadline));
                            case WRITE_BW -> writeBandwidth(ep, n, iters, deadline);
                        });
            }
            // Tell the server we are done and wait for its answer before closing: closing right after our SEND
            // completed could tear the connection down before the server consumed it (on siw a SEND completes
            // once handed to TCP, and the disconnect then flushed the server's receive: seen once in CI).
            long deadline = System.nanoTime() + timeout.toNanos();
            ep.awaitSends(deadline);
            ep.send(1, deadline);
            ep.awaitSends(deadline);
            ep.awaitReceive(deadline);
            return results;
        }
    }

    /** How many times a connect is tried whose rdma_connect fails with EADDRINUSE (see {@link #connect}). */
    private static final int CONNECT_ATTEMPTS = 3;

    /**
     * CmConnector.connect's steps up to rdma_connect, by hand: the connect private data must name the buffer, which
     * exists only once the id is bound to a device. A connect that fails with EADDRINUSE is tried again with a new
     * id, as RdmaClient.connect does: on iWARP the rdma_cm port space is not the TCP stack's, and Soft-iWARP binds its
     * TCP socket to the port rdma_cm chose (siw_cm.c, kernel_bindconnect), which a TCP socket of the host may hold.
     *
     * @return the endpoint, its id connecting (the caller takes ESTABLISHED) and its resources made
     */
    private static PerfEndpoint connect(
            EventChannel channel,
            InetSocketAddress server,
            Duration timeout,
            int maxSize,
            int sendDepth,
            Function<MemoryRegion, PerfRequest> request)
            throws RdmaException {
        for (int attempt = 1; ; attempt++) {
            PerfEndpoint ep = new PerfEndpoint(maxSize, sendDepth);
            try {
                CmId id = channel.createId();
                ep.id = id;
                CmConnector.resolveAddress(id, null, server, timeout);
                id.resolveRoute(timeout);
                id.expect(CmEventType.ROUTE_RESOLVED, CmConnector.eventWait(timeout));
                ep.create(id);
                id.connect(ConnectionParameters.DEFAULTS.withPrivateData(
                        request.apply(ep.mr).encode()));
                return ep;
            } catch (RdmaException e) {
                ep.close();
                if (!CmConnector.portChosenWasTaken(e) || attempt == CONNECT_ATTEMPTS) {
                    throw e;
                }
                System.err.println("perf: " + e.getMessage() + " (the local port rdma_cm chose is held by a TCP "
                        + "socket); trying again with a new id, attempt " + (attempt + 1) + " of " + CONNECT_ATTEMPTS);
            } catch (RuntimeException | Error e) {
                ep.close();
                throw e;
            }
        }
    }

    /**
     * After the warm-up: lets the JIT finish compiling before the measured iterations ({@link JitQuiescence}: on the
     * emulated testbed compiler threads on the other CPU make every Soft-RoCE completion wait a scheduler tick).
     */
    private static void awaitJit(Duration timeout) {
        try {
            Duration waited = JitQuiescence.await(Duration.ofSeconds(1), timeout);
            if (waited.isNegative()) {
                System.err.println("perf: the JIT compiler threads' CPU time is unreadable; measuring at once");
            } else if (waited.toMillis() > 1500) {
                System.err.printf(
                        "perf: waited %d ms for the JIT to finish compiling before measuring%n", waited.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Result latencyResult(Test test, int size, int iters, long[] stamps) {
        int n = iters - 1;
        long[] deltas = new long[n];
        for (int i = 0; i < n; i++) {
            deltas[i] = stamps[i + 1] - stamps[i];
        }
        LatencyStats s = LatencyStats.of(deltas, n, test.rttFactor);
        double bw = s.avgUs() == 0 ? 0 : size / (s.avgUs() * test.rttFactor) * 1e6 / 1048576.0;
        return new Result(test, size, iters, s, bw, 0);
    }
}
