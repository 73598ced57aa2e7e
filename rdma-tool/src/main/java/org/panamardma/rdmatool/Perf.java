package org.panamardma.rdmatool;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionChannel;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.cm.QueuePairOptions;
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
 */
public final class Perf {
    /** perftest's default port. */
    public static final int DEFAULT_PORT = 18515;
    public static final int MIN_SIZE = 1;
    public static final int MAX_SIZE = 65536;
    static final int TX_DEPTH = 128;
    static final int CQ_MOD = 100;
    static final int RX_DEPTH = 16;
    private static final long RECV_BIT = 1L << 62;
    /**
     * Client connections whose first stream start probe went unanswered, so that a second one was sent (the siw
     * race {@link StreamStartProbe} describes, met and overcome): the tests report it.
     */
    static final AtomicLong STREAM_STARTS_REPROBED = new AtomicLong();
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final byte MAGIC_REQUEST = 'P';
    private static final byte MAGIC_REPLY = 'p';

    private Perf() {}

    /** The tests, by their command-line name. */
    public enum Test {
        SEND_LAT("send_lat", 2), WRITE_LAT("write_lat", 2), READ_LAT("read_lat", 1), ATOMIC_LAT("atomic_lat", 1),
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
            throw new UsageException("perf: unknown test '" + name + "' (send_lat, write_lat, read_lat, atomic_lat, "
                    + "write_bw)");
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
            return String.format(Locale.ROOT, "%s,%d,%d,%.3f,%.3f,%.3f,%.6f", test.cliName(), size, iters,
                    latency.p50Us(), latency.p99Us(), latency.avgUs(), bwMBps);
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

    // ------------------------------------------------------------------------------------------------ wire format

    /**
     * The client's connect private data: what to run, how many unmeasured warm-up iterations first, and where its
     * buffer is (32 bytes: under RoCE's 56).
     */
    record Request(Test test, int iters, int minSize, int maxSize, boolean allSizes, long address, int rkey,
                   int warmup) {
        byte[] encode() {
            return ByteBuffer.allocate(32).put(MAGIC_REQUEST).put((byte) 2).put((byte) test.ordinal())
                    .put((byte) (allSizes ? 1 : 0)).putInt(iters).putInt(minSize).putInt(maxSize).putLong(address)
                    .putInt(rkey).putInt(warmup).array();
        }

        static Request decode(byte[] b) {
            if (b.length < 32 || b[0] != MAGIC_REQUEST || b[1] != 2 || b[2] < 0 || b[2] >= Test.values().length) {
                return null;
            }
            ByteBuffer bb = ByteBuffer.wrap(b);
            return new Request(Test.values()[b[2]], bb.getInt(4), bb.getInt(8), bb.getInt(12), b[3] == 1,
                    bb.getLong(16), bb.getInt(24), bb.getInt(28));
        }

        List<Integer> sizes() {
            return Perf.sizes(test, allSizes, minSize);
        }
    }

    static byte[] encodeReply(long address, int rkey) {
        return ByteBuffer.allocate(16).put(MAGIC_REPLY).put((byte) 1).putShort((short) 0).putLong(address)
                .putInt(rkey).array();
    }

    // -------------------------------------------------------------------------------------------------- one side

    /**
     * One side's resources on the id's device: a buffer of two halves of {@code maxSize} bytes (the first is where
     * the peer writes and receives land, the second what this side sends, writes from and reads into), one CQ with
     * a completion channel (armed only by {@link #awaitReceiveBlocking}), the queue pair. Nothing on the data path
     * allocates.
     */
    static final class Endpoint implements AutoCloseable {
        final int maxSize;
        final int sendDepth;
        ProtectionDomain pd;
        CompletionChannel channel;
        CompletionQueue cq;
        MemoryRegion mr;
        QueuePair qp;
        CmId id;
        final WorkCompletions wc = WorkCompletions.allocate(16);
        long sendsPosted;
        long sendsCompleted;
        int receivesArrived;
        long remoteAddress;
        int remoteRkey;

        Endpoint(int maxSize, int sendDepth) {
            this.maxSize = Math.max(maxSize, 8);
            this.sendDepth = sendDepth;
        }

        QueuePair create(CmId cmId) throws RdmaException {
            this.id = cmId;
            Context ctx = cmId.context();
            pd = ctx.allocateProtectionDomain();
            channel = ctx.createCompletionChannel();
            cq = ctx.createCompletionQueue(sendDepth + RX_DEPTH, channel);
            // the peer writes (write_lat, write_bw), reads (read_lat) and adds (atomic_lat) into it; receives land in it
            mr = pd.allocate(2L * maxSize, Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
                    Access.REMOTE_ATOMIC));
            qp = cmId.createQueuePair(pd, QueuePairOptions.of(cq).withQueueDepths(sendDepth, RX_DEPTH));
            for (int i = 0; i < RX_DEPTH; i++) {
                postReceive();
            }
            return qp;
        }

        MemorySegment segment() {
            return mr.segment();
        }

        long sendOffset() {
            return maxSize;
        }

        void postReceive() throws RdmaException {
            qp.postReceive(RECV_BIT, mr, 0, maxSize);
        }

        /** Polls the CQ once; counts completed sends (each signaled one completes through its wr_id) and receives. */
        int pollOnce() throws RdmaException {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                wc.check(i);
                long wrId = wc.wrId(i);
                if (wrId == RECV_BIT) {
                    receivesArrived++;
                } else {
                    sendsCompleted = wrId + 1;
                }
            }
            return n;
        }

        /** Spins until a receive has arrived, consumes it and re-posts its buffer. */
        void awaitReceive(long deadline) throws RdmaException {
            while (receivesArrived == 0) {
                if (pollOnce() == 0) {
                    checkDeadline(deadline, "a message from the peer");
                }
            }
            receivesArrived--;
            postReceive();
        }

        /**
         * As {@link #awaitReceive}, but blocked in the kernel between completions (the CQ armed, then a wait on its
         * completion channel): for waits nobody measures, where spinning, or even waking up every millisecond to
         * poll, would take the CPU from the peer that is being measured.
         */
        void awaitReceiveBlocking(long deadline) throws RdmaException {
            while (receivesArrived == 0) {
                if (pollOnce() > 0) {
                    continue;
                }
                cq.requestNotification(false);
                // a completion that came between the empty poll and the arming raised no event: look once more
                if (pollOnce() > 0) {
                    continue;
                }
                checkDeadline(deadline, "a message from the peer");
                long leftMillis = Math.max(1, (deadline - System.nanoTime()) / 1_000_000L);
                channel.await(Math.min(leftMillis, 1_000));
            }
            receivesArrived--;
            postReceive();
        }

        /**
         * {@link StreamStartProbe} on this side's queue pair: zero-length READs of the peer's buffer, the next one
         * after each wait without an answer, until one is answered; then waits for all of them, so that the tests
         * start with every request completed.
         */
        void confirmStreamStart(long deadline) throws RdmaException {
            long first = sendsPosted;
            long wait = StreamStartProbe.FIRST_WAIT_NANOS;
            while (sendsCompleted <= first) {
                if (sendsPosted - first < StreamStartProbe.MAX_PROBES) {
                    awaitSendSlot(deadline);
                    qp.postRead(sendsPosted++, mr, sendOffset(), 0, remoteAddress, remoteRkey, SendFlags.SIGNALED);
                }
                long until = System.nanoTime() + wait;
                while (sendsCompleted <= first && System.nanoTime() - until < 0) {
                    if (pollOnce() == 0) {
                        checkDeadline(deadline, "the answer to a zero-length READ (the stream start probe)");
                    }
                }
                wait = StreamStartProbe.nextWaitNanos(wait);
            }
            if (sendsPosted - first > 1) {
                STREAM_STARTS_REPROBED.incrementAndGet();
            }
            awaitSends(deadline);
        }

        /** Spins until every posted send request has completed. */
        void awaitSends(long deadline) throws RdmaException {
            while (sendsCompleted < sendsPosted) {
                if (pollOnce() == 0) {
                    checkDeadline(deadline, "the completion of send request " + (sendsPosted - 1));
                }
            }
        }

        /** Waits for a free send slot (signaled requests are freed by their completion). */
        void awaitSendSlot(long deadline) throws RdmaException {
            while (sendsPosted - sendsCompleted >= sendDepth) {
                if (pollOnce() == 0) {
                    checkDeadline(deadline, "a free send queue slot");
                }
            }
        }

        void send(int length, long deadline) throws RdmaException {
            awaitSendSlot(deadline);
            qp.postSend(sendsPosted++, mr, sendOffset(), length, SendFlags.SIGNALED);
        }

        /**
         * Throws ETIMEDOUT once {@code deadline} has passed, naming what was awaited and this side's state: the
         * QP's state as the device reports it and the counts of sends posted and completed and receives consumed,
         * so a run that stalls says where (a request posted but never completed, or never posted at all).
         */
        void checkDeadline(long deadline, String what) throws RdmaException {
            if (System.nanoTime() - deadline > 0) {
                throw new RdmaException("perf: timed out waiting for " + what + " (" + describe() + ")",
                        110 /* ETIMEDOUT */);
            }
        }

        String describe() {
            String state;
            try {
                state = qp == null ? "none" : qp.state().toString();
            } catch (RdmaException | RuntimeException e) {
                state = "unknown: " + e.getMessage();
            }
            return "QP " + (qp == null ? "-" : qp.qpNumber()) + " state " + state + ", sends posted " + sendsPosted
                    + ", completed " + sendsCompleted + ", receives waiting " + receivesArrived;
        }

        @Override
        public void close() {
            if (id != null) {
                id.close();
            }
            for (AutoCloseable r : new AutoCloseable[] {mr, cq, channel, pd, wc}) {
                if (r != null) {
                    try {
                        r.close();
                    } catch (Exception | Error e) {
                        // closing what is already gone with its parent context
                    }
                }
            }
        }
    }

    /** Spins until the byte at {@code offset} of {@code seg} is {@code expected} (a volatile read each time). */
    static void awaitByte(Endpoint ep, MemorySegment seg, long offset, byte expected, long deadline)
            throws RdmaException {
        int spins = 0;
        while ((byte) BYTE.getVolatile(seg, offset) != expected) {
            if ((++spins & 0x3ff) == 0 && System.nanoTime() - deadline > 0) {
                ep.checkDeadline(deadline, "the peer's RDMA WRITE (byte " + offset + " to become "
                        + (expected & 0xff) + ", it is " + ((byte) BYTE.getVolatile(seg, offset) & 0xff) + ")");
            }
            Thread.onSpinWait();
        }
    }

    // ----------------------------------------------------------------------------------------------------- client

    /**
     * Runs {@code test} against the perf server at {@code server} at {@code size}, or with {@code allSizes} at every
     * size of {@link #sizes}, and returns the figures (one per size).
     *
     * @param timeout for connecting and for each size's run
     */
    public static List<Result> run(InetSocketAddress server, Test test, int size, boolean allSizes, int iters,
                                   Duration timeout) throws RdmaException {
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
    public static List<Result> run(InetSocketAddress server, Test test, int size, boolean allSizes, int iters,
                                   int warmup, Duration timeout) throws RdmaException {
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
        Endpoint ep = new Endpoint(maxSize, test == Test.WRITE_BW ? TX_DEPTH : RX_DEPTH);
        try (EventChannel channel = EventChannel.create(); ep) {
            // CmConnector.connect's steps, by hand: the connect private data must name the buffer, which exists
            // only once the id is bound to a device
            CmId id = channel.createId();
            ep.id = id;
            Duration wait = CmConnector.eventWait(timeout);
            CmConnector.resolveAddress(id, null, server, timeout);
            id.resolveRoute(timeout);
            id.expect(CmEventType.ROUTE_RESOLVED, wait);
            ep.create(id);
            Request request = new Request(test, iters, minSize, maxSize, allSizes, ep.mr.address(), ep.mr.rkey(),
                    warmup);
            id.connect(ConnectionParameters.DEFAULTS.withPrivateData(request.encode()));
            CmEvent established = id.expect(CmEventType.ESTABLISHED, wait);
            ByteBuffer reply = ByteBuffer.wrap(established.privateData());
            if (reply.remaining() < 16 || reply.get(0) != MAGIC_REPLY) {
                throw new RdmaException("perf: " + server + " is not an rdma-tool perf server (its accept carried no "
                        + "buffer description)", 71 /* EPROTO */);
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
                results.add(switch (test) {
                    case SEND_LAT -> latencyResult(test, n, iters, sendLatency(ep, n, iters, false, deadline));
                    case WRITE_LAT -> latencyResult(test, n, iters, writeLatency(ep, n, iters, false, deadline));
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
                System.err.printf("perf: waited %d ms for the JIT to finish compiling before measuring%n",
                        waited.toMillis());
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

    /**
     * ib_send_lat's loop: the client SENDs then waits for the reply; the server waits then SENDs back. Returns the
     * client's post stamps.
     */
    static long[] sendLatency(Endpoint ep, int size, int iters, boolean server, long deadline) throws RdmaException {
        long[] stamps = new long[iters];
        for (int i = 0; i < iters; i++) {
            if (server) {
                ep.awaitReceive(deadline);
                ep.send(size, deadline);
            } else {
                stamps[i] = System.nanoTime();
                ep.send(size, deadline);
                ep.awaitReceive(deadline);
            }
        }
        ep.awaitSends(deadline);
        return stamps;
    }

    /**
     * ib_write_lat's {@code run_iter_lat_write}: each side writes {@code size} bytes whose last byte is its count
     * of writes, then spins on its own buffer's byte {@code size - 1} for the peer's next count. The client
     * starts; the server first waits.
     */
    static long[] writeLatency(Endpoint ep, int size, int iters, boolean server, long deadline) throws RdmaException {
        long[] stamps = new long[iters];
        MemorySegment seg = ep.segment();
        long pollOffset = size - 1;
        long postLast = ep.sendOffset() + size - 1;
        int scnt = 0;
        int rcnt = 0;
        long completedBefore = ep.sendsCompleted;
        while (scnt < iters || ep.sendsCompleted - completedBefore < iters || rcnt < iters) {
            if (rcnt < iters && !(scnt < 1 && !server)) {
                rcnt++;
                awaitByte(ep, seg, pollOffset, (byte) rcnt, deadline);
            }
            if (scnt < iters) {
                stamps[scnt] = System.nanoTime();
                seg.set(ValueLayout.JAVA_BYTE, postLast, (byte) ++scnt);
                ep.awaitSendSlot(deadline);
                ep.qp.postWrite(ep.sendsPosted++, ep.mr, ep.sendOffset(), size, ep.remoteAddress, ep.remoteRkey,
                        SendFlags.SIGNALED);
            }
            if (ep.sendsCompleted - completedBefore < iters) {
                while (ep.pollOnce() == 0) {
                    ep.checkDeadline(deadline, "an RDMA WRITE completion");
                }
            }
        }
        return stamps;
    }

    /** ib_read_lat / ib_atomic_lat: one READ (or FetchAdd) at a time, spinning on the CQ. */
    static long[] readLatency(Endpoint ep, int size, int iters, boolean atomic, long deadline)
            throws RdmaException {
        long[] stamps = new long[iters];
        for (int i = 0; i < iters; i++) {
            stamps[i] = System.nanoTime();
            long wrId = ep.sendsPosted++;
            if (atomic) {
                ep.qp.postFetchAdd(wrId, ep.mr, ep.sendOffset(), ep.remoteAddress, ep.remoteRkey, 1L,
                        SendFlags.SIGNALED);
            } else {
                ep.qp.postRead(wrId, ep.mr, ep.sendOffset(), size, ep.remoteAddress, ep.remoteRkey,
                        SendFlags.SIGNALED);
            }
            ep.awaitSends(deadline);
        }
        return stamps;
    }

    /**
     * ib_write_bw: up to {@value #TX_DEPTH} WRITEs in flight, every {@value #CQ_MOD}th and the last signaled (a
     * signaled completion also retires the unsignaled requests before it).
     */
    static Result writeBandwidth(Endpoint ep, int size, int iters, long deadline) throws RdmaException {
        long base = ep.sendsPosted;
        long end = base + iters;
        int depth = Math.min(TX_DEPTH, ep.sendDepth);
        int cqMod = Math.min(CQ_MOD, depth);
        long t0 = System.nanoTime();
        while (ep.sendsCompleted < end) {
            while (ep.sendsPosted < end && ep.sendsPosted - ep.sendsCompleted < depth) {
                long n = ep.sendsPosted - base;
                int flags = (n % cqMod == cqMod - 1 || ep.sendsPosted == end - 1) ? SendFlags.SIGNALED
                        : SendFlags.NONE;
                ep.qp.postWrite(ep.sendsPosted++, ep.mr, ep.sendOffset(), size, ep.remoteAddress, ep.remoteRkey,
                        flags);
            }
            if (ep.pollOnce() == 0) {
                ep.checkDeadline(deadline, "RDMA WRITE completions");
            }
        }
        long t1 = System.nanoTime();
        double seconds = (t1 - t0) / 1e9;
        double bw = (double) size * iters / seconds / 1048576.0;
        return new Result(Test.WRITE_BW, size, iters, null, bw, iters / seconds / 1e6);
    }

    // ----------------------------------------------------------------------------------------------------- server

    /**
     * A perf server: serves one client connection after the other on its own thread until closed. Each connection
     * says in its connect private data which test to run; the server answers with its buffer in the accept private
     * data, takes its part (echoes for send_lat and write_lat, nothing for the others) and waits for the client's
     * final SEND.
     */
    public static final class Server implements AutoCloseable {
        private final EventChannel channel;
        private final CmId listener;
        private final Thread thread;
        private final PrintStream out;
        private final Duration timeout;
        private volatile boolean closing;
        private volatile int served;

        private Server(InetSocketAddress bind, Duration timeout, PrintStream out) throws RdmaException {
            this.out = out;
            this.timeout = timeout;
            channel = EventChannel.create();
            try {
                listener = CmConnector.listen(channel, bind, 8);
            } catch (RdmaException | RuntimeException e) {
                channel.close();
                throw e;
            }
            thread = Thread.ofPlatform().name("perf-server").daemon(true).unstarted(this::run);
            thread.start();
        }

        public static Server start(InetSocketAddress bind, Duration timeout, PrintStream out) throws RdmaException {
            return new Server(bind, timeout, out);
        }

        /** How many connections it has served to the end. */
        public int served() {
            return served;
        }

        /** Blocks until the server thread ends (it ends only when closed, or on a listener failure). */
        public void join() throws InterruptedException {
            thread.join();
        }

        private void run() {
            try {
                while (!closing) {
                    CmEvent e = listener.await(Duration.ofMillis(200));
                    if (e == null) {
                        continue;
                    }
                    if (!e.is(CmEventType.CONNECT_REQUEST)) {
                        out.println("perf server: ignoring " + e);
                        continue;
                    }
                    serveOne(e);
                }
            } catch (RdmaException | RuntimeException e) {
                if (!closing) {
                    out.println("perf server: stopped: " + e.getMessage());
                }
            } finally {
                listener.close();
                channel.close();
            }
        }

        private void serveOne(CmEvent request) {
            CmId id = request.id();
            Request r = Request.decode(request.privateData());
            if (r == null) {
                out.println("perf server: rejecting a connection that did not ask for a perf test");
                try {
                    id.reject(new byte[0]);
                } catch (RdmaException ignored) {
                    // it goes anyway
                } finally {
                    id.close();
                }
                return;
            }
            out.printf("perf server: %s, %d iterations, sizes %d..%d, from %s%n", r.test().cliName(), r.iters(),
                    r.minSize(), r.maxSize(), id.peerAddress().map(Object::toString).orElse("?"));
            Endpoint ep = new Endpoint(r.maxSize(), RX_DEPTH);
            try {
                ep.create(id);
                ep.remoteAddress = r.address();
                ep.remoteRkey = r.rkey();
                id.accept(ConnectionParameters.DEFAULTS.withPrivateData(encodeReply(ep.mr.address(), ep.mr.rkey())));
                id.expect(CmEventType.ESTABLISHED, timeout);
                if (r.warmup() > 0) {
                    long deadline = System.nanoTime() + timeout.toNanos();
                    switch (r.test()) {
                        case SEND_LAT -> sendLatency(ep, r.sizes().get(0), r.warmup(), true, deadline);
                        case WRITE_LAT -> writeLatency(ep, r.sizes().get(0), r.warmup(), true, deadline);
                        default -> { }
                    }
                }
                for (int size : r.sizes()) {
                    long deadline = System.nanoTime() + timeout.toNanos();
                    switch (r.test()) {
                        case SEND_LAT -> sendLatency(ep, size, r.iters(), true, deadline);
                        case WRITE_LAT -> writeLatency(ep, size, r.iters(), true, deadline);
                        default -> { } // the client alone drives READs, atomics and write_bw
                    }
                }
                // The client's final SEND; the passive tests may take long, hence the generous wait. Waited for
                // blocked in the kernel: in read_lat, atomic_lat and write_bw this side has nothing to do, and a
                // spinning server would take CPU from the client it is measuring (perftest's passive side blocks,
                // too). On the single-threaded emulated testbed spinning made Java's read/atomic latency up to 50x
                // C's, and polling every millisecond in between still 5-7x (issue 15).
                ep.awaitReceiveBlocking(System.nanoTime() + timeout.toNanos() * Math.max(1, r.sizes().size()));
                // The client's final SEND says its run is over: served, whatever becomes of our answer below.
                served++;
                // Answer it, then let the client be the one to disconnect, once it has our answer. Whoever closes
                // first must have nothing left in flight: on siw a SEND completes once handed to TCP, and a
                // disconnect right after it flushed the peer's receive (seen in CI, in both directions).
                long deadline = System.nanoTime() + timeout.toNanos();
                ep.send(1, deadline);
                try {
                    ep.awaitSends(deadline);
                } catch (org.panamardma.verbs.WorkCompletionException e) {
                    // The client disconnects as soon as it has the answer; siw completes a SEND whose bytes are
                    // already with TCP but whose work request it has not retired yet as flushed when the QP
                    // leaves RTS (siw_qp.c, siw_sq_flush: "Flush an in-progress WQE if present"). Seen in
                    // a CI rehearsal on an overloaded host: the client had its answer and its result, our answer
                    // was flushed. Nothing the client needs is lost; say so and go on.
                    out.printf("perf server: %s done; the answer completed as %s (the client disconnected as it "
                            + "went out)%n", r.test().cliName(), e.status());
                    return;
                }
                out.printf("perf server: %s done%n", r.test().cliName());
                try {
                    id.expect(CmEventType.DISCONNECTED, timeout);
                } catch (RdmaException e) {
                    out.println("perf server: the client did not disconnect: " + e.getMessage());
                }
            } catch (org.panamardma.verbs.WorkCompletionException e) {
                // the client closed or failed before its final SEND: its QP's disconnect flushed ours
                out.println("perf server: the client left before the end of the run (" + e.status() + "; "
                        + ep.describe() + ")");
            } catch (RdmaException | RuntimeException e) {
                out.println("perf server: connection failed: " + e.getMessage());
            } finally {
                ep.close();
            }
        }

        @Override
        public void close() throws InterruptedException {
            closing = true;
            thread.join(10_000);
        }
    }
}
