package org.panamardma.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.panamardma.benchmarks.BlobService.Opaque;
import org.panamardma.benchmarks.BlobService.PutResult;
import org.panamardma.benchmarks.BlobService.Size;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.tcp.TcpRpcClient;
import org.panamardma.oncrpc4j.OncRpcRdmaSvc;
import org.panamardma.oncrpc4j.OncRpcRdmaSvcBuilder;
import org.panamardma.rpcrdma.client.ReplyExpectation;
import org.panamardma.rpcrdma.client.RpcRdmaClient;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;
import org.panamardma.rpcrdma.client.RpcRdmaReply;
import org.panamardma.xdr.XdrDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One oncrpc4j service instance ({@link BlobService}) served in one JVM by oncrpc4j's own TCP server and by the
 * bridge over RPC-over-RDMA ({@code org.panamardma.oncrpc4j}) at once, each measured with the same counts and
 * payloads, one call at a time, in the CSV of {@code perftest/compare-in-guest.sh}
 * ({@code impl,test,size,iters,p50_us,p99_us,avg_us,bw_MBps}):
 * <ul>
 *   <li>{@code bridge_null}: NULL round trips, not halved (microseconds);</li>
 *   <li>{@code bridge_get}: GET of {@code --io-size} bytes (1 MiB), the service's {@code opaque<>} result: MB/s of
 *       2^20 bytes; every reply's bytes checked;</li>
 *   <li>{@code bridge_put}: PUT of as many bytes, the call's {@code opaque<>} argument; the service answers the length
 *       and a digest of what it received, checked.</li>
 * </ul>
 * The clients, with their impl names:
 * <ul>
 *   <li>{@code BRIDGE-TCP4J}: oncrpc4j's own client ({@code OncRpcClient}, {@code RpcCall}) over TCP to oncrpc4j's
 *       server: what an oncrpc4j user has today, the baseline;</li>
 *   <li>{@code BRIDGE-TCP}: this project's {@link TcpRpcClient} to the same TCP server, to tell the client's part of
 *       the TCP figure from the server's;</li>
 *   <li>{@code BRIDGE-RDMA}: this project's {@link RpcRdmaClient} to the bridge. PUT's argument is DDP-eligible
 *       (the server RDMA-reads it from a Read chunk), GET offers a Reply chunk (the bridge RDMA-writes the reply
 *       there: an oncrpc4j service's {@code opaque<>} result is not a file chunk, so no Write chunk).</li>
 * </ul>
 * Every client decodes GET's bytes into a new {@code byte[]} (oncrpc4j's {@code xdrDecodeDynamicOpaque} does; the
 * others call {@code getOpaqueBytes}) and sends PUT's from memory filled once: a heap array over TCP, a native
 * segment over RDMA (the memory RDMA reads from; the client registers it per call, as it does every chunk).
 * Each client gets the same unmeasured warm-up right before its measured calls: {@code --warmup} NULLs (default
 * {@code --iters}), and {@code max(2, io-iters / 4)} GETs or PUTs. Order: for each measure, oncrpc4j TCP, our TCP,
 * RDMA.
 *
 * <p>Usage: {@code BridgeBench --server IP [--rdma-port P] [--clients tcp4j,tcp,rdma] [--iters N] [--warmup N]
 * [--io-iters N] [--io-size BYTES]}. Both servers bind {@code IP} (in the testbed the RoCE device's, 10.77.0.2; the
 * RDMA client goes out of rxe0); TCP takes a free port. {@code --clients tcp4j,tcp} needs no RDMA device.
 */
public final class BridgeBench {
    private static final Logger LOG = LoggerFactory.getLogger(BridgeBench.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private BridgeBench() {}

    /** One client of the service, over one transport. */
    interface Client extends AutoCloseable {
        /** The CSV's impl column. */
        String impl();

        void ping() throws Exception;

        /** GETs {@code size} bytes and checks them. */
        void get(int size) throws Exception;

        /** PUTs the payload and checks the service's answer. */
        void put() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        String server = null, clients = "tcp4j,tcp,rdma";
        int rdmaPort = 20180, iters = 1000, warmup = -1, ioIters = 32, ioSize = 1 << 20;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--server" -> server = args[++i];
                case "--rdma-port" -> rdmaPort = Integer.parseInt(args[++i]);
                case "--clients" -> clients = args[++i];
                case "--iters" -> iters = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--io-iters" -> ioIters = Integer.parseInt(args[++i]);
                case "--io-size" -> ioSize = Integer.parseInt(args[++i]);
                default ->
                    throw new IllegalArgumentException("unknown argument " + a + "; usage: --server IP "
                            + "[--rdma-port P] [--clients tcp4j,tcp,rdma] [--iters N] [--warmup N] [--io-iters N] "
                            + "[--io-size BYTES]");
            }
        }
        if (server == null) {
            throw new IllegalArgumentException("--server is required");
        }
        if (ioSize < 1 || ioSize > BlobService.MAX_SIZE) {
            throw new IllegalArgumentException("--io-size from 1 to " + BlobService.MAX_SIZE + ", not " + ioSize);
        }
        run(
                System.out,
                server,
                rdmaPort,
                List.of(clients.split(",")),
                iters,
                warmup < 0 ? iters : warmup,
                ioIters,
                ioSize);
    }

    /** Starts the servers the clients need, runs every measure with every client, stops the servers. */
    static BlobService run(
            PrintStream out,
            String server,
            int rdmaPort,
            List<String> clientNames,
            int iters,
            int warmup,
            int ioIters,
            int ioSize)
            throws Exception {
        BlobService service = new BlobService();
        // oncrpc4j's TCP server as the README's example configures it (worker threads, as services in production)
        OncRpcSvc tcp = new OncRpcSvcBuilder()
                .withTCP()
                .withBindAddress(server)
                .withPort(0)
                .withoutAutoPublish()
                .withWorkerThreadIoStrategy()
                .withServiceName("bridge-bench-tcp")
                .withRpcService(BlobService.ONC_PROGRAM, service)
                .build();
        OncRpcRdmaSvc rdma = null;
        List<Client> clients = new ArrayList<>();
        try (Arena arena = Arena.ofShared()) { // shared: the RDMA client registers it on the caller's thread, its
            // poller completes the call on another
            tcp.start();
            InetSocketAddress tcpAddress = tcp.getInetSocketAddress(IpProtocolType.TCP);
            byte[] payload = BlobService.pattern(ioSize);
            for (String name : clientNames) {
                switch (name.strip()) {
                    case "tcp4j" -> clients.add(new Oncrpc4jTcp(tcpAddress, payload));
                    case "tcp" -> clients.add(new OurTcp(tcpAddress, payload));
                    case "rdma" -> {
                        if (rdma == null) {
                            // the bridge as the README's example builds it, on the same instance
                            rdma = new OncRpcRdmaSvcBuilder()
                                    .withBindAddress(server)
                                    .withPort(rdmaPort)
                                    .withRpcService(BlobService.ONC_PROGRAM, service)
                                    .withCredits(32)
                                    .withRdmaServer(b -> b.maxConnections(4).timeout(TIMEOUT))
                                    .build();
                            rdma.start();
                        }
                        MemorySegment native_ = arena.allocate(ioSize, 4096);
                        native_.copyFrom(MemorySegment.ofArray(payload));
                        clients.add(new Rdma(new InetSocketAddress(server, rdmaPort), native_, payload));
                    }
                    default -> throw new IllegalArgumentException("clients are tcp4j, tcp and rdma, not " + name);
                }
            }
            LOG.info(
                    "serving program {} on TCP {} and RDMA {}: {}",
                    Integer.toHexString(BlobService.PROGRAM),
                    tcpAddress,
                    rdma == null ? "-" : rdma.getInetSocketAddress(),
                    clientNames);

            for (Client c : clients) {
                for (int i = 0; i < warmup; i++) {
                    c.ping();
                }
                long[] rtt = new long[iters];
                for (int i = 0; i < iters; i++) {
                    long t0 = System.nanoTime();
                    c.ping();
                    rtt[i] = System.nanoTime() - t0;
                }
                emit(out, NfsRpcBench.latencyLine(c.impl(), "bridge_null", 0, rtt));
            }
            int ioWarmup = Math.max(2, ioIters / 4);
            for (Client c : clients) {
                for (int i = 0; i < ioWarmup; i++) {
                    c.get(ioSize);
                }
                long t0 = System.nanoTime();
                for (int i = 0; i < ioIters; i++) {
                    c.get(ioSize);
                }
                emit(out, NfsRpcBench.bandwidthLine(c.impl(), "bridge_get", ioSize, ioIters, System.nanoTime() - t0));
            }
            for (Client c : clients) {
                for (int i = 0; i < ioWarmup; i++) {
                    c.put();
                }
                long t0 = System.nanoTime();
                for (int i = 0; i < ioIters; i++) {
                    c.put();
                }
                emit(out, NfsRpcBench.bandwidthLine(c.impl(), "bridge_put", ioSize, ioIters, System.nanoTime() - t0));
            }
        } finally {
            for (Client c : clients) {
                try {
                    c.close();
                } catch (Exception e) {
                    LOG.warn("closing {}: {}", c.impl(), e.toString());
                }
            }
            if (rdma != null) {
                LOG.info("bridge: {}", rdma.statistics());
                rdma.stop();
            }
            tcp.stop();
        }
        return service;
    }

    private static void emit(PrintStream out, String line) {
        out.println(line);
        out.flush(); // the figures so far survive a later failure
    }

    /** oncrpc4j's own client, as its users call a service: typed arguments and results, a blocking call. */
    static final class Oncrpc4jTcp implements Client {
        private final OncRpcClient client;
        private final RpcCall call;
        private final Opaque payload;

        Oncrpc4jTcp(InetSocketAddress server, byte[] payload) throws IOException {
            this.client = new OncRpcClient(server, IpProtocolType.TCP);
            this.call = new RpcCall(BlobService.PROGRAM, BlobService.VERSION, new RpcAuthTypeNone(), client.connect());
            this.payload = new Opaque(payload);
        }

        @Override
        public String impl() {
            return "BRIDGE-TCP4J";
        }

        @Override
        public void ping() throws Exception {
            call.call(BlobService.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }

        @Override
        public void get(int size) throws Exception {
            Opaque result = new Opaque();
            call.call(BlobService.GET, new Size(size), result, TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            checkGet(result.bytes, size);
        }

        @Override
        public void put() throws Exception {
            PutResult result = new PutResult();
            call.call(BlobService.PUT, payload, result, TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            checkPut(result.length, result.sample, payload.bytes);
        }

        @Override
        public void close() throws IOException {
            client.close();
        }
    }

    /** This project's ONC RPC client over TCP, to the same oncrpc4j TCP server. */
    static final class OurTcp implements Client {
        private final TcpRpcClient client;
        private final byte[] payload;

        OurTcp(InetSocketAddress server, byte[] payload) throws IOException {
            this.client = TcpRpcClient.connect(server, payload.length + (64 << 10));
            this.payload = payload;
        }

        @Override
        public String impl() {
            return "BRIDGE-TCP";
        }

        @Override
        public void ping() throws Exception {
            client.invoke(
                    BlobService.PROGRAM,
                    BlobService.VERSION,
                    BlobService.NULL,
                    OpaqueAuth.NONE,
                    out -> {},
                    in -> Boolean.TRUE,
                    TIMEOUT);
        }

        @Override
        public void get(int size) throws Exception {
            byte[] b = client.invoke(
                    BlobService.PROGRAM,
                    BlobService.VERSION,
                    BlobService.GET,
                    OpaqueAuth.NONE,
                    out -> out.putInt(size),
                    in -> in.getOpaqueBytes(BlobService.MAX_SIZE),
                    TIMEOUT);
            checkGet(b, size);
        }

        @Override
        public void put() throws Exception {
            int[] r = client.invoke(
                    BlobService.PROGRAM,
                    BlobService.VERSION,
                    BlobService.PUT,
                    OpaqueAuth.NONE,
                    out -> out.putOpaque(payload, BlobService.MAX_SIZE),
                    in -> new int[] {in.getInt(), in.getInt()},
                    TIMEOUT);
            checkPut(r[0], r[1], payload);
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** This project's RPC-over-RDMA client to the bridge. */
    static final class Rdma implements Client {
        private final RpcRdmaClient client;
        private final MemorySegment payload;
        private final byte[] payloadBytes;

        Rdma(InetSocketAddress server, MemorySegment payload, byte[] payloadBytes) throws IOException {
            this.client = RpcRdmaClient.connect(server, RpcRdmaClientOptions.DEFAULTS.withTimeouts(TIMEOUT, TIMEOUT));
            LOG.info("RDMA client on {} to {}: {}", client.deviceName(), server, client.negotiated());
            this.payload = payload;
            this.payloadBytes = payloadBytes;
        }

        @Override
        public String impl() {
            return "BRIDGE-RDMA";
        }

        private RpcRdmaReply success(RpcRdmaReply r) throws IOException {
            if (!r.isSuccess()) {
                throw new IOException("the bridge answered " + r.header());
            }
            return r;
        }

        @Override
        public void ping() throws Exception {
            success(client.call(
                            BlobService.PROGRAM,
                            BlobService.VERSION,
                            BlobService.NULL,
                            OpaqueAuth.NONE,
                            out -> {},
                            ReplyExpectation.SMALL)
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        }

        @Override
        public void get(int size) throws Exception {
            // room for the opaque's length word and padding: the client offers a Reply chunk when that exceeds what
            // it receives inline
            RpcRdmaReply r = success(client.call(
                            BlobService.PROGRAM,
                            BlobService.VERSION,
                            BlobService.GET,
                            OpaqueAuth.NONE,
                            out -> out.putInt(size),
                            ReplyExpectation.upTo(size + 64L))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            checkGet(r.resultsDecoder().getOpaqueBytes(BlobService.MAX_SIZE), size);
        }

        @Override
        public void put() throws Exception {
            RpcRdmaReply r = success(client.call(
                            BlobService.PROGRAM,
                            BlobService.VERSION,
                            BlobService.PUT,
                            OpaqueAuth.NONE,
                            out -> out.putEligibleOpaque(payload, BlobService.MAX_SIZE),
                            ReplyExpectation.SMALL)
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            XdrDecoder in = r.resultsDecoder();
            checkPut(in.getInt(), in.getInt(), payloadBytes);
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** A benchmark that moved wrong bytes measures nothing. */
    static void checkGet(byte[] b, int size) throws IOException {
        if (b.length != size || !BlobService.isPattern(b)) {
            throw new IOException("GET " + size + " returned " + b.length + " bytes, not the pattern");
        }
    }

    static void checkPut(int length, int sample, byte[] sent) throws IOException {
        if (length != sent.length || sample != BlobService.sample(sent)) {
            throw new IOException("PUT of " + sent.length + " bytes: the service received " + length + " bytes, digest "
                    + sample + " (expected " + BlobService.sample(sent) + ")");
        }
    }
}
