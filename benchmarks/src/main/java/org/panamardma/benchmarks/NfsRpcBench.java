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
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.rpc.RdmaRpcTransport;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;

/**
 * RPC figures against the kernel's NFS server (knfsd) in the testbed guest, one transport per run, written in the
 * CSV of {@code perftest/compare-in-guest.sh} ({@code impl,test,size,iters,p50_us,p99_us,avg_us,bw_MBps}):
 * <ul>
 *   <li>{@code rpc_null}: NFSv3 NULL round trips (RFC 1813 section 3.3.0), the cost of one RPC and nothing else.
 *       A round trip, not halved: compare it with twice perftest's ib_send_lat, which is one-way;</li>
 *   <li>{@code nfs_read}: the whole 1 MiB pattern file read with READs of {@code --io-size} bytes (256 KiB), one
 *       call at a time, throughput in MB/s of 2^20 bytes (perftest's unit); every read's bytes are checked;</li>
 *   <li>{@code nfs_write}: 1 MiB written to the scratch file with UNSTABLE WRITEs of the same size, then one COMMIT
 *       inside the timed span, so the figure includes getting the data to stable storage.</li>
 * </ul>
 * knfsd, not a Java server, answers on purpose: it is the same server for both transports and the one deployed.
 * The export is the one {@code nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh} makes.
 *
 * <p>Why 256 KiB per call: over RDMA the guest's knfsd returns at most 512 KiB per READ, and a WRITE whose Read
 * chunk exceeded its maximum payload made the 6.12 guest kernel oops (see KnfsdRdmaDeviceTests); a client keeps to
 * the server's limits, as Linux's does (it mounts with rsize=wsize=512 KiB here). Both transports use the same size.
 *
 * <p>Usage: {@code NfsRpcBench --transport tcp|rdma --server IP [--export DIR] [--iters N] [--warmup N]
 * [--io-iters N] [--io-size BYTES]}
 */
public final class NfsRpcBench {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final OpaqueAuth ROOT = Nfs3Client.authSys("panama-rdma-bench", 0, 0);
    private static final int PATTERN_MODULUS = 251;
    /** The pattern file's size, and what one READ or WRITE iteration moves */
    private static final int FILE_SIZE = 1 << 20;

    private NfsRpcBench() {
    }

    /** Opens the transport to knfsd's NFS service: TCP 2049, or RPC-over-RDMA on 20049 (RFC 8267 section 3). */
    @FunctionalInterface
    interface TransportFactory {
        RpcTransport open(String server, int maxIo) throws IOException, InterruptedException;
    }

    public static void main(String[] args) throws Exception {
        String transport = null, server = null, export = "/srv/panama-nfs";
        int iters = 1000, warmup = -1, ioIters = 32, ioSize = 256 << 10;
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
                default -> throw new IllegalArgumentException("unknown argument " + a + "; usage: "
                        + "--transport tcp|rdma --server IP [--export DIR] [--iters N] [--warmup N] [--io-iters N] "
                        + "[--io-size BYTES]");
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
        return RdmaRpcTransport.connect(new InetSocketAddress(host, Nfs3.RDMA_PORT), RpcRdmaClientOptions.DEFAULTS
                .withTimeouts(TIMEOUT, TIMEOUT));
    }

    static void run(PrintStream out, String impl, TransportFactory factory, String server, String export, int iters,
                    int warmup, int ioIters, int ioSize) throws Exception {
        FileHandle3 root = mount(server, export);
        try (RpcTransport transport = factory.open(server, ioSize);
             Arena arena = Arena.ofShared()) { // shared: the RDMA transport's poller thread touches it
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

            MemorySegment file = arena.allocate(FILE_SIZE, 4096);
            int ioWarmup = Math.max(2, ioIters / 4);
            for (int i = 0; i < ioWarmup; i++) {
                readChecked(nfs, pattern, file, ioSize);
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < ioIters; i++) {
                readChecked(nfs, pattern, file, ioSize);
            }
            out.println(bandwidthLine(impl, "nfs_read", FILE_SIZE, ioIters, System.nanoTime() - t0));

            for (int i = 0; i < ioWarmup; i++) {
                writeFile(nfs, scratch, file, ioSize);
            }
            t0 = System.nanoTime();
            for (int i = 0; i < ioIters; i++) {
                writeFile(nfs, scratch, file, ioSize);
            }
            nfs.commit(scratch, 0, 0);
            out.println(bandwidthLine(impl, "nfs_write", FILE_SIZE, ioIters, System.nanoTime() - t0));
        }
    }

    /** The whole pattern file, READ by READ, its bytes compared: a benchmark that moved wrong bytes measures nothing. */
    private static void readChecked(Nfs3Client nfs, FileHandle3 pattern, MemorySegment file, int ioSize)
            throws IOException, InterruptedException {
        long n = nfs.readFully(pattern, 0, file, ioSize);
        if (n != file.byteSize()) {
            throw new IOException("READs returned " + n + " of " + file.byteSize() + " bytes");
        }
        for (long i = 0; i < file.byteSize(); i += 4093) { // a prime stride: every page, varying offsets
            if (file.get(ValueLayout.JAVA_BYTE, i) != (byte) (i % PATTERN_MODULUS)) {
                throw new IOException("READ returned a wrong byte at " + i);
            }
        }
    }

    /** 1 MiB written at offset 0 in calls of {@code ioSize} bytes, UNSTABLE (committed once by the caller). */
    private static void writeFile(Nfs3Client nfs, FileHandle3 scratch, MemorySegment file, int ioSize)
            throws IOException, InterruptedException {
        for (long off = 0; off < file.byteSize(); off += ioSize) {
            MemorySegment part = file.asSlice(off, Math.min(ioSize, file.byteSize() - off));
            long written = nfs.write(scratch, off, part, StableHow.UNSTABLE).count();
            if (written != part.byteSize()) {
                throw new IOException("WRITE wrote " + written + " of " + part.byteSize() + " bytes");
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
