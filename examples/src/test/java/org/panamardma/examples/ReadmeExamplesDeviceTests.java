package org.panamardma.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.server.ExportOptions;
import org.panamardma.nfs.server.NfsServer;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcClient;
import org.panamardma.rpcrdma.client.RpcClients;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * The README's examples run on a device, every one asserting the data it moved: the client side on the test device,
 * the server side on its peer's address (rxe0 -> rxe1 at 10.77.0.2, siw0 -> siw1 at 10.77.1.2). Subclassed per
 * transport; the RoCE one adds what needs atomics, FLUSH and ATOMIC WRITE.
 */
abstract class ReadmeExamplesDeviceTests {
    private static final AtomicInteger PORTS = new AtomicInteger(30_000 + new Random().nextInt(20_000));

    static String peerAddress(RdmaTestDevice device) {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer device"));
        InetAddress ip = peer.ipv4().orElseThrow(() -> new AssertionError(peer + " has no IPv4 address"));
        return ip.getHostAddress();
    }

    @FunctionalInterface
    interface Example {
        void run() throws Exception;
    }

    /** What {@code example} prints on standard output (also shown there, for the suite's report). */
    static synchronized String stdout(Example example) throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        captured.write(b);
                        original.write(b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) {
                        captured.write(b, off, len);
                        original.write(b, off, len);
                    }
                },
                true,
                StandardCharsets.UTF_8));
        try {
            example.run();
        } finally {
            System.out.flush();
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    /** "Use it": the ten-line program, its argument the peer's address; the string crossed by RDMA WRITE. */
    @Test
    void theTenLineProgramWritesItsGreetingIntoThePeersMemory(RdmaTestDevice device) throws Exception {
        String out = stdout(() -> HelloRdma.main(new String[] {peerAddress(device)}));
        assertEquals(device.peer().orElseThrow().name() + " received: Hello, RDMA!", out.strip());
    }

    /** "Netty and gRPC over RDMA": grpc-netty's server and channel on RDMA channels; the answer came back. */
    @Test
    void theGrpcExampleCallsOverRdma(RdmaTestDevice device) throws Exception {
        String out = stdout(() -> GrpcOverRdma.main(new String[] {peerAddress(device)}));
        assertEquals("HELLO OVER RDMA", out.strip());
    }

    /** "An RPC-over-RDMA server in 10 lines" and its client: echoes over rdma:// and tcp://, inline and by chunks. */
    @Test
    void theRpcServerEchoesOverRdmaAndTcp(RdmaTestDevice device) throws Exception {
        String host = peerAddress(device);
        byte[] small = pattern(100, 1);
        byte[] large = pattern(300_000, 2); // beyond the inline threshold: Read chunk out, Reply chunk back
        RpcIn10Lines.serve(host, () -> {
            try {
                for (String uri : new String[] {"rdma://" + host + ":20050", "tcp://" + host + ":20051"}) {
                    assertArrayEquals(small, RpcIn10Lines.echo(URI.create(uri), small), uri);
                    assertArrayEquals(large, RpcIn10Lines.echo(URI.create(uri), large), uri);
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    /**
     * "oncrpc4j services over RDMA": the example's oncrpc4j service, on oncrpc4j's TCP server and the bridge at once,
     * answers this project's client over rdma:// and tcp:// with the bytes it was sent, inline and by chunks.
     */
    @Test
    void theOncrpc4jServiceAnswersOverRdmaAndTcp(RdmaTestDevice device) throws Exception {
        String host = peerAddress(device);
        int rdmaPort = PORTS.getAndIncrement();
        int tcpPort = PORTS.getAndIncrement();
        byte[] small = pattern(100, 3);
        byte[] large = pattern(300_000, 4); // beyond the inline threshold: Read chunk out, Reply chunk back
        Oncrpc4jOverRdma.serve(host, rdmaPort, tcpPort, () -> {
            for (String uri : new String[] {"rdma://" + host + ":" + rdmaPort, "tcp://" + host + ":" + tcpPort}) {
                try (RpcClient c = RpcClients.connect(URI.create(uri), 1 << 20)) {
                    for (byte[] bytes : new byte[][] {small, large}) {
                        byte[] back = c.invoke(
                                Oncrpc4jOverRdma.PROG,
                                1,
                                1,
                                OpaqueAuth.NONE,
                                out -> out.putOpaque(bytes, 1 << 24),
                                in -> in.getOpaqueBytes(1 << 24),
                                Duration.ofSeconds(60));
                        assertArrayEquals(bytes, back, uri + ", " + bytes.length + " bytes");
                    }
                } catch (Exception e) {
                    throw new AssertionError(uri, e);
                }
            }
        });
    }

    /**
     * The NFSv3 client examples, over TCP and over RPC-over-RDMA, against the Java NFS server in this JVM (the
     * README's text names knfsd; the code is the same): a 1 MiB pattern file read and written back whole.
     */
    @Test
    void theNfsClientsReadAndWriteAMebibyteOverTcpAndRdma(RdmaTestDevice device) throws Exception {
        String host = peerAddress(device);
        Path export = Files.createTempDirectory("panama-readme-nfs-");
        Path state = Files.createTempDirectory("panama-readme-nfs-state-");
        // root is squashed (the server's default): the example's uid 0 acts as 65534, who must read and write
        Files.setPosixFilePermissions(export, PosixFilePermissions.fromString("rwxrwxrwx"));
        byte[] content = pattern(1 << 20, 3);
        Path file = export.resolve("pattern.bin");
        Files.write(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        int nfsPort = PORTS.getAndIncrement();
        int mountPort = PORTS.getAndIncrement();
        int rdmaPort = PORTS.getAndIncrement();
        // insecure: the example's JVM connects over TCP from an ordinary port (as to knfsd's test export); the
        // server's default, secure, takes only the reserved ports Linux's client binds
        try (NfsServer server = NfsServer.builder(export)
                .state(state)
                .rpcbind(false)
                .options(ExportOptions.DEFAULTS.withSecure(false))
                .tcp(new InetSocketAddress(host, nfsPort))
                .mount(new InetSocketAddress(host, mountPort))
                .rdma(new InetSocketAddress(host, rdmaPort))
                .start()) {
            NfsClients examples = new NfsClients(host, server.exportPath(), mountPort, nfsPort, rdmaPort);
            long[] before = moved(server.statistics());
            String listing = stdout(examples::overTcp);
            long[] afterTcp = moved(server.statistics());
            assertTrue(listing.lines().anyMatch("pattern.bin"::equals), listing);
            assertEquals(1 << 20, afterTcp[0] - before[0], "bytes READ over TCP");
            assertEquals(1 << 20, afterTcp[1] - before[1], "bytes written over TCP");
            assertArrayEquals(content, Files.readAllBytes(file), "written back as read");
            String negotiated = stdout(examples::overRdma);
            long[] afterRdma = moved(server.statistics());
            assertTrue(negotiated.contains("sendThreshold="), "the RFC 8797 negotiation printed: " + negotiated);
            assertEquals(1 << 20, afterRdma[0] - afterTcp[0], "bytes READ over RDMA");
            assertEquals(1 << 20, afterRdma[1] - afterTcp[1], "bytes written over RDMA");
            assertTrue(afterRdma[2] > afterTcp[2], "calls over RPC-over-RDMA: " + server.statistics());
            assertArrayEquals(content, Files.readAllBytes(file), "written back as read");
        }
    }

    private static final Pattern NFS_BYTES = Pattern.compile("; read (\\d+) bytes, written (\\d+) bytes");
    /** The RPC-over-RDMA server's calls by how they came: {@code calls {INLINE=3, READ_CHUNKS=1, POSITION_ZERO=0}}. */
    private static final Pattern RDMA_CALLS = Pattern.compile("; RDMA [^:]+:\\d+: calls \\{([^}]*)}");

    /** From NfsServer's statistics line: bytes read, bytes written, RPC-over-RDMA calls (of every kind). */
    static long[] moved(String statistics) {
        Matcher bytes = NFS_BYTES.matcher(statistics);
        Matcher calls = RDMA_CALLS.matcher(statistics);
        assertTrue(bytes.find() && calls.find(), statistics);
        long rdmaCalls = 0;
        for (String kind : calls.group(1).split(", ")) {
            rdmaCalls += Long.parseLong(kind.substring(kind.indexOf('=') + 1));
        }
        return new long[] {Long.parseLong(bytes.group(1)), Long.parseLong(bytes.group(2)), rdmaCalls};
    }

    static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }
}
