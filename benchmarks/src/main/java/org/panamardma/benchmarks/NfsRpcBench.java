package org.panamardma.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.MountClient;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.PortmapClient;
import org.panamardma.nfs.ReadResult;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;

/**
 * RPC figures against the kernel's NFS server (knfsd) in the testbed guest, one transport per run, written in the
 * CSV of {@code perftest/compare-in-guest.sh} ({@code impl,test,size,iters,p50_us,p99_us,avg_us,bw_MBps}):
 * <ul>
 *   <li>{@code rpc_null}: NFSv3 NULL round trips (RFC 1813 section 3.3.0), the cost of one RPC and nothing else.
 *       A round trip, not halved: compare it with twice perftest's ib_send_lat, which is one-way;</li>
 *   <li>{@code nfs_read}: READs of {@code --io-size} bytes (1 MiB) of the 1 MiB pattern file, one at a time,
 *       throughput in MB/s of 2^20 bytes (perftest's unit); every read's bytes are checked against the pattern;</li>
 *   <li>{@code nfs_write}: UNSTABLE WRITEs of the same size to the scratch file, then one COMMIT inside the timed
 *       span, so the figure includes getting the data to stable storage.</li>
 * </ul>
 * knfsd, not a Java server, answers on purpose: it is the same server for both transports and the one deployed.
 * The export is the one {@code nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh} makes.
 *
 * <p>Usage: {@code NfsRpcBench --transport tcp|rdma --server IP [--export DIR] [--iters N] [--warmup N]
 * [--io-iters N]}
 */
public final class NfsRpcBench {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final OpaqueAuth ROOT = Nfs3Client.authSys("panama-rdma-bench", 0, 0);
    private static final int PATTERN_MODULUS = 251;

    private NfsRpcBench() {
    }

    /** Opens the transport to knfsd's NFS service: TCP 2049, or RPC-over-RDMA on 20049 (RFC 8267 section 3). */
    @FunctionalInterface
    interface TransportFactory {
        RpcTransport open(String server, int maxIo) throws IOException, InterruptedException;
    }

    public static void main(String[] args) throws Exception {
        String transport = null, server = null, export = "/srv/panama-nfs";
        int iters = 1000, warmup = -1, ioIters = 32, ioSize = 1 << 20;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--transport" -> transport = args[++i];
                case "--server" -> server = args[++i];
                case "--export" -> export = args[++i];
                case "--iters" -> iters = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--io-iters" -> ioIters = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + a + "; usage: "
                        + "--transport tcp|rdma --server IP [--export DIR] [--iters N] [--warmup N] [--io-iters N]");
            }
        }
        if (transport == null || server == null) {
            throw new IllegalArgumentException("--transport and --server are required");
        }
        if (warmup < 0) {
            warmup = iters;
        }
        TransportFactory factory = switch (transport) {
            case "tcp" -> (host, maxIo) -> TcpRpcTransport.connect(new InetSocketAddress(host, Nfs3.TCP_PORT),
                    maxIo + 64 * 1024);
            case "rdma" -> NfsRpcBench::openRdma;
            default -> throw new IllegalArgumentException("transport must be tcp or rdma, not " + transport);
        };
        String impl = "RPC-" + transport.toUpperCase(Locale.ROOT);
        run(System.out, impl, factory, server, export, iters, warmup, ioIters, ioSize);
    }

    static RpcTransport openRdma(String host, int maxIo) throws IOException, InterruptedException {
        throw new UnsupportedOperationException("the RPC-over-RDMA client transport is not in this build");
    }

    static void run(PrintStream out, String impl, TransportFactory factory, String server, String export, int iters,
                    int warmup, int ioIters, int ioSize) throws Exception {
        FileHandle3 root = mount(server, export);
        try (RpcTransport transport = factory.open(server, ioSize);
             Arena arena = Arena.ofConfined()) {
            Nfs3Client nfs = new Nfs3Client(transport, ROOT, TIMEOUT);
            FileHandle3 pattern = nfs.lookup(root, "pattern.bin").handle();
            FileHandle3 scratch = nfs.lookup(root, "write-target").handle();

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

            MemorySegment buffer = arena.allocate(ioSize, 4096);
            int ioWarmup = Math.max(2, ioIters / 4);
            for (int i = 0; i < ioWarmup; i++) {
                readChecked(nfs, pattern, buffer);
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < ioIters; i++) {
                readChecked(nfs, pattern, buffer);
            }
            out.println(bandwidthLine(impl, "nfs_read", ioSize, ioIters, System.nanoTime() - t0));

            for (int i = 0; i < ioWarmup; i++) {
                nfs.write(scratch, 0, buffer, StableHow.UNSTABLE);
            }
            t0 = System.nanoTime();
            for (int i = 0; i < ioIters; i++) {
                long written = nfs.write(scratch, (long) i * ioSize, buffer, StableHow.UNSTABLE).count();
                if (written != ioSize) {
                    throw new IOException("WRITE wrote " + written + " of " + ioSize + " bytes");
                }
            }
            nfs.commit(scratch, 0, 0);
            out.println(bandwidthLine(impl, "nfs_write", ioSize, ioIters, System.nanoTime() - t0));
        }
    }

    /** One READ of the whole pattern file, its bytes compared: a benchmark that moved wrong bytes measures nothing. */
    private static void readChecked(Nfs3Client nfs, FileHandle3 pattern, MemorySegment buffer)
            throws IOException, InterruptedException {
        ReadResult r = nfs.read(pattern, 0, buffer);
        if (r.count() != buffer.byteSize()) {
            throw new IOException("READ returned " + r.count() + " of " + buffer.byteSize() + " bytes");
        }
        MemorySegment data = r.data();
        for (long i = 0; i < data.byteSize(); i += 4093) { // a prime stride: every page, varying offsets
            if (data.get(ValueLayout.JAVA_BYTE, i) != (byte) (i % PATTERN_MODULUS)) {
                throw new IOException("READ returned a wrong byte at " + i);
            }
        }
    }

    private static FileHandle3 mount(String server, String export) throws IOException, InterruptedException {
        int mountPort;
        try (TcpRpcTransport pmap = TcpRpcTransport.connect(server, PortmapClient.PORT)) {
            mountPort = new PortmapClient(pmap, TIMEOUT).getPort(MountClient.PROGRAM, MountClient.VERSION,
                    PortmapClient.IPPROTO_TCP);
        }
        try (TcpRpcTransport mount = TcpRpcTransport.connect(server, mountPort)) {
            return new MountClient(mount, ROOT, TIMEOUT).mount(export).root();
        }
    }

    static String latencyLine(String impl, String test, int size, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double avg = Arrays.stream(sorted).average().orElse(0);
        return String.format(Locale.ROOT, "%s,%s,%d,%d,%.2f,%.2f,%.2f,", impl, test, size, nanos.length,
                sorted[sorted.length / 2] / 1e3, sorted[(int) Math.min(sorted.length - 1L, sorted.length * 99L / 100)] / 1e3,
                avg / 1e3);
    }

    static String bandwidthLine(String impl, String test, int size, int iters, long nanos) {
        double mbps = (double) size * iters / (1 << 20) / (nanos / 1e9);
        return String.format(Locale.ROOT, "%s,%s,%d,%d,,,,%.6f", impl, test, size, iters, mbps);
    }
}
