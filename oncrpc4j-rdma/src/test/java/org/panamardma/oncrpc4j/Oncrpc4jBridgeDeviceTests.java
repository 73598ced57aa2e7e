package org.panamardma.oncrpc4j;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcClient;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.tcp.TcpRpcClient;
import org.panamardma.oncrpc4j.DemoCases.Case;
import org.panamardma.oncrpc4j.demo.Blob;
import org.panamardma.oncrpc4j.demo.Demo;
import org.panamardma.oncrpc4j.demo.DemoService;
import org.panamardma.oncrpc4j.demo.ReadArgs;
import org.panamardma.rpcrdma.ConfigRdma;
import org.panamardma.rpcrdma.RdmaProcedure;
import org.panamardma.rpcrdma.client.CallPlan;
import org.panamardma.rpcrdma.client.ReplyExpectation;
import org.panamardma.rpcrdma.client.RpcClients;
import org.panamardma.rpcrdma.client.RpcRdmaClient;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;
import org.panamardma.rpcrdma.client.RpcRdmaException;
import org.panamardma.rpcrdma.client.RpcRdmaReply;
import org.panamardma.rpcrdma.server.ReplyPath;
import org.panamardma.rpcrdma.server.RpcRdmaServer;
import org.panamardma.rpcrdma.server.ServerStatistics;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testing.RdmaResources;
import org.panamardma.xdr.XdrDecoder;

/**
 * The demo program, written as oncrpc4j users write programs, served on a real device by the bridge
 * ({@link OncRpcRdmaSvc} on the peer device) and, the same instance at once, by oncrpc4j's own TCP server: this
 * project's RPC-over-RDMA client (and {@link RpcClients} with {@code rdma://}) gets from it what oncrpc4j's TCP
 * gives, over every chunk path, 1,000 calls at once, a client vanishing mid-call, bad transport headers.
 */
abstract class Oncrpc4jBridgeDeviceTests {
    static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final AtomicInteger PORTS = new AtomicInteger(40_000 + new Random().nextInt(9_000));
    private static final AtomicInteger XIDS = new AtomicInteger(0x4b1d_0000);
    /** Sizes from 0 to 8 MiB: inline, around the 4 KiB threshold, Read chunks and Write/Reply chunks. */
    static final int[] SIZES = {0, 1, 1000, 4001, 65_539, 1 << 20, 8 << 20};

    private final List<AutoCloseable> open = new ArrayList<>();
    Path files;
    DemoService demo;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (files != null) {
            try (var list = Files.list(files)) {
                for (Path p : list.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(files);
        }
    }

    static InetAddress peerAddress(RdmaTestDevice device) {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer device"));
        return peer.ipv4().orElseThrow(() -> new AssertionError(peer + " has no IPv4 address"));
    }

    DemoService demo() throws Exception {
        if (demo == null) {
            files = Files.createTempDirectory("oncrpc4j-rdma");
            DemoFiles.create(files, DemoCases.FILES);
            DemoFiles.create(files, SIZES);
            demo = new DemoService(files, Duration.ofMillis(20));
        }
        return demo;
    }

    /** The bridge on the peer device, serving {@code program}. */
    OncRpcRdmaSvc bridge(RdmaTestDevice device, RpcDispatchable program, int credits) throws Exception {
        OncRpcRdmaSvc svc = new OncRpcRdmaSvcBuilder()
                .withBindAddress(peerAddress(device).getHostAddress())
                .withPort(PORTS.getAndIncrement())
                .withRpcService(DemoService.PROGRAM, program)
                .withCredits(credits)
                .withRdmaServer(b -> b.timeout(TIMEOUT))
                .build();
        svc.start();
        open.add(svc);
        return svc;
    }

    /** oncrpc4j's own TCP server, on the peer device's address too. */
    OncRpcSvc tcp(RdmaTestDevice device, RpcDispatchable program) throws Exception {
        OncRpcSvc svc = new OncRpcSvcBuilder()
                .withTCP()
                .withoutAutoPublish()
                .withBindAddress(peerAddress(device).getHostAddress())
                .withPort(0)
                .withRpcService(DemoService.PROGRAM, program)
                .withServiceName("demo-tcp")
                .withWorkerThreadIoStrategy()
                .build();
        svc.start();
        open.add(svc::stop);
        return svc;
    }

    RpcRdmaClient client(OncRpcRdmaSvc svc) throws Exception {
        RpcRdmaClient c = RpcRdmaClient.connect(
                svc.getInetSocketAddress(), RpcRdmaClientOptions.DEFAULTS.withTimeouts(TIMEOUT, TIMEOUT));
        open.add(c);
        return c;
    }

    static RpcRdmaReply await(CompletableFuture<RpcRdmaReply> f) throws Exception {
        return f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The results as the client rebuilds them: inline part, then what was placed (it ends the results), padded. */
    static byte[] results(RpcRdmaReply r) {
        byte[] inline = r.results().toArray(JAVA_BYTE);
        if (!r.usedWriteList()) {
            return inline;
        }
        byte[] placed = r.placed(0).toArray(JAVA_BYTE);
        return HostBridge.concat(inline, placed, new byte[(4 - (placed.length & 3)) & 3]);
    }

    /** One case over RDMA with this project's client; READ offers a Write chunk for its data. */
    static Object overRdma(RpcRdmaClient c, Case k, Arena arena) throws Exception {
        byte[] args = HostBridge.xdr(k.args());
        ReplyExpectation expect = k.procedure() == Demo.READ_1
                ? ReplyExpectation.placedInto(arena.allocate(Math.max(1, k.replyBytes())), k.replyBytes())
                : ReplyExpectation.upTo(k.replyBytes());
        RpcRdmaReply r = await(c.call(
                Demo.DEMO, k.version(), k.procedure(), OpaqueAuth.NONE, out -> out.putFixedOpaque(args), expect));
        return r.isSuccess() ? results(r) : r.header();
    }

    /** One case over oncrpc4j's TCP server, with this project's TCP client: the raw results, or the reply. */
    static Object overTcp(TcpRpcClient c, Case k) throws Exception {
        return DemoCallsOverTcp.overTcp(c, k, TIMEOUT);
    }

    /** One case through the {@link RpcClient} interface ({@code rdma://} or {@code tcp://}). */
    static Object overInterface(RpcClient c, Case k) throws Exception {
        return DemoCallsOverTcp.overInterface(c, k, TIMEOUT);
    }

    /** Results compare by bytes; failures by their reply header, whose XIDs differ by client. */
    static void assertSame(Case k, Object expected, Object actual, String how) {
        if (expected instanceof byte[] e) {
            assertNotNull(k.results(), k.name() + " succeeded, expected to fail");
            assertArrayEquals(e, assertInstanceOf(byte[].class, actual, k.name() + " " + how), k.name() + " " + how);
        } else {
            assertNull(k.results(), k.name() + " failed: " + expected);
            assertEquals(
                    SameInstanceTcpAndBridgeTest.withXid((RpcMessage) expected, 1),
                    SameInstanceTcpAndBridgeTest.withXid((RpcMessage) actual, 1),
                    k.name() + " " + how);
        }
    }

    @Test
    void everyProcedureAnswersOverRdmaAsOncrpc4jAnswersOverTcp(RdmaTestDevice device) throws Exception {
        DemoService program = demo();
        OncRpcRdmaSvc rdma = bridge(device, program, 16);
        OncRpcSvc tcp = tcp(device, program);
        InetSocketAddress tcpAddress = tcp.getInetSocketAddress(IpProtocolType.TCP);
        RpcRdmaClient c = client(rdma);
        TcpRpcClient ours = TcpRpcClient.connect(tcpAddress, 16 << 20);
        open.add(ours);
        RpcClient viaUri = RpcClients.connect(
                URI.create("rdma://" + peerAddress(device).getHostAddress() + ":"
                        + rdma.getInetSocketAddress().getPort()),
                4 << 20);
        open.add(viaUri);
        List<Case> cases = DemoCases.all(1 << 20);
        try (Arena arena = Arena.ofConfined();
                OncRpcClient oncrpc4j = new OncRpcClient(tcpAddress, IpProtocolType.TCP)) {
            RpcTransport transport = oncrpc4j.connect();
            RpcCall theirs = new RpcCall(Demo.DEMO, Demo.DEMO_V1, new RpcAuthTypeNone(), transport);
            for (Case k : cases) {
                Object expected = overTcp(ours, k);
                assertSame(k, expected, overRdma(c, k, arena), "over RDMA");
                assertSame(k, expected, overInterface(viaUri, k), "through RpcClients rdma://");
                if (k.results() != null && k.version() == Demo.DEMO_V1) {
                    // oncrpc4j's own client over TCP: the same typed results
                    XdrAble typed = k.results().get();
                    theirs.call(k.procedure(), k.args(), typed, 60, TimeUnit.SECONDS, null);
                    assertArrayEquals((byte[]) expected, HostBridge.xdr(typed), k.name() + " by oncrpc4j's client");
                }
            }
        }
        ServerStatistics st = rdma.statistics();
        System.out.println(device.name() + " " + cases.size() + " cases, bridge paths: " + st);
        // READ 5000 and READ middle; smaller targets get no Write chunk (the client's 1 KiB minimum)
        assertTrue(st.replies(ReplyPath.WRITE_LIST) >= 2, "READs went by RDMA Write: " + st);
        assertTrue(st.replies(ReplyPath.REPLY_CHUNK) >= 2, "long replies by the Reply chunk: " + st);
        assertEquals(0, rdma.fileChunkBudget().used());
    }

    @Test
    void payloadsFromZeroToEightMiBThroughEveryChunkPath(RdmaTestDevice device) throws Exception {
        OncRpcRdmaSvc rdma = bridge(device, demo(), 16);
        // a Write chunk for every placement target, however small (the default leaves those under 1 KiB inline)
        RpcRdmaClient c = RpcRdmaClient.connect(
                rdma.getInetSocketAddress(),
                RpcRdmaClientOptions.DEFAULTS.withTimeouts(TIMEOUT, TIMEOUT).withChunkMinimums(1024, 1));
        open.add(c);
        ServerStatistics st = rdma.statistics();
        try (Arena arena = Arena.ofConfined()) {
            for (int size : SIZES) {
                byte[] bytes = DemoFiles.pattern(size);
                MemorySegment payload = arena.allocate(Math.max(size, 1)).asSlice(0, size);
                payload.copyFrom(MemorySegment.ofArray(bytes));

                // ECHO, the argument DDP-eligible: Read chunks once it is large; the reply inline or Reply chunk
                long readChunks = st.readChunkCalls();
                long t0 = System.nanoTime();
                RpcRdmaReply r = await(c.call(
                        Demo.DEMO,
                        1,
                        Demo.ECHO_1,
                        OpaqueAuth.NONE,
                        out -> out.putEligibleOpaque(payload, Integer.MAX_VALUE),
                        ReplyExpectation.upTo(size + 8L)));
                System.out.printf(
                        "%s ECHO %d eligible: call %s, reply %s, %d ms%n",
                        device.name(), size, r.callKind(), r.replyProcedure(), (System.nanoTime() - t0) / 1_000_000);
                assertArrayEquals(bytes, r.resultsDecoder().getOpaqueBytes(Integer.MAX_VALUE), "ECHO " + size);
                if (size >= 65_539) {
                    assertEquals(CallPlan.Kind.READ_CHUNKS, r.callKind());
                    assertEquals(readChunks + 1, st.readChunkCalls());
                    assertEquals(RdmaProcedure.RDMA_NOMSG, r.replyProcedure(), "a long reply: Reply chunk");
                }

                // ECHO, nothing eligible: a Long Call (position zero) once it exceeds the inline threshold
                long positionZero = st.positionZeroCalls();
                t0 = System.nanoTime();
                r = await(c.call(
                        Demo.DEMO,
                        1,
                        Demo.ECHO_1,
                        OpaqueAuth.NONE,
                        out -> out.putOpaque(payload, Integer.MAX_VALUE),
                        ReplyExpectation.upTo(size + 8L)));
                System.out.printf(
                        "%s ECHO %d plain: call %s, reply %s, %d ms%n",
                        device.name(), size, r.callKind(), r.replyProcedure(), (System.nanoTime() - t0) / 1_000_000);
                assertArrayEquals(bytes, r.resultsDecoder().getOpaqueBytes(Integer.MAX_VALUE), "plain ECHO " + size);
                if (size >= 65_539) {
                    assertEquals(CallPlan.Kind.POSITION_ZERO, r.callKind());
                    assertEquals(positionZero + 1, st.positionZeroCalls());
                }

                // READ: the file chunk RDMA-written into the Write chunk, only its length word inline
                long writeList = st.replies(ReplyPath.WRITE_LIST);
                MemorySegment target = arena.allocate(Math.max(size, 1));
                t0 = System.nanoTime();
                r = await(c.call(
                        Demo.DEMO,
                        1,
                        Demo.READ_1,
                        OpaqueAuth.NONE,
                        out -> out.putFixedOpaque(HostBridge.xdr(new ReadArgs(DemoFiles.name(size), 0, size))),
                        ReplyExpectation.placedInto(target, size + 64L)));
                System.out.printf(
                        "%s READ %d: reply %s, write list %s, %d ms%n",
                        device.name(),
                        size,
                        r.replyProcedure(),
                        r.usedWriteList(),
                        (System.nanoTime() - t0) / 1_000_000);
                assertTrue(r.usedWriteList(), "READ " + size + " offered a Write chunk");
                assertEquals(writeList + 1, st.replies(ReplyPath.WRITE_LIST), "READ " + size + " by RDMA Write");
                assertArrayEquals(bytes, r.placed(0).toArray(JAVA_BYTE), "READ " + size + " placed");
                XdrDecoder in = r.resultsDecoder();
                assertEquals(Demo.OK, in.getInt());
                assertEquals(1, in.getInt(), "eof");
                assertEquals(size, in.getInt(), "the data's length word inline");
                assertTrue(in.atEnd(), "the data and its roundup not inline");
            }
        }
        System.out.println(device.name() + " bridge paths: " + st + ", file chunk memory peak "
                + rdma.fileChunkBudget().peak());
        assertEquals(0, rdma.fileChunkBudget().used(), "file chunk memory given back");
        assertEquals(0, rdma.server().heapBudget().used());
        assertEquals(0, rdma.server().pinnedBudget().used());
    }

    @Test
    void aThousandConcurrentCallsOverRdmaWhileTcpServesTheSameInstance(RdmaTestDevice device) throws Exception {
        DemoService program = demo();
        OncRpcRdmaSvc rdma = bridge(device, program, 8);
        OncRpcSvc tcp = tcp(device, program);
        RpcRdmaClient c = client(rdma);
        TcpRpcClient overTcp = TcpRpcClient.connect(tcp.getInetSocketAddress(IpProtocolType.TCP), 1 << 20);
        open.add(overTcp);
        int callsBefore = program.calls.get();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        AtomicInteger maxOutstanding = new AtomicInteger();
        try (Arena arena = Arena.ofShared()) {
            for (int i = 0; i < 1000; i++) {
                int n = i;
                CompletableFuture<RpcRdmaReply> f;
                switch (i % 3) {
                    case 0 -> {
                        byte[] payload = DemoFiles.pattern(16 + i % 300);
                        f = c.call(
                                Demo.DEMO,
                                1,
                                Demo.ECHO_1,
                                OpaqueAuth.NONE,
                                out -> out.putFixedOpaque(HostBridge.xdr(new Blob(payload))),
                                ReplyExpectation.SMALL);
                        all.add(f.thenAccept(r ->
                                assertArrayEquals(payload, r.resultsDecoder().getOpaqueBytes(Integer.MAX_VALUE))));
                    }
                    case 1 -> {
                        f = c.call(
                                Demo.DEMO,
                                1,
                                Demo.ADD_1,
                                OpaqueAuth.NONE,
                                out -> out.putFixedOpaque(
                                        HostBridge.xdr(new org.panamardma.oncrpc4j.demo.AddArgs(n, 1_000_000L * n))),
                                ReplyExpectation.SMALL);
                        all.add(f.thenAccept(r ->
                                assertEquals(1_000_001L * n, r.resultsDecoder().getHyper())));
                    }
                    default -> {
                        MemorySegment target = arena.allocate(5000);
                        int offset = i % 4000;
                        f = c.call(
                                Demo.DEMO,
                                1,
                                Demo.READ_1,
                                OpaqueAuth.NONE,
                                out -> out.putFixedOpaque(
                                        HostBridge.xdr(new ReadArgs(DemoFiles.name(5000), offset, 1000))),
                                ReplyExpectation.placedInto(target, 1100));
                        all.add(f.thenAccept(r -> assertArrayEquals(
                                Arrays.copyOfRange(DemoFiles.pattern(5000), offset, offset + 1000),
                                r.placed(0).toArray(JAVA_BYTE))));
                    }
                }
                var _ = f.thenRun(() -> maxOutstanding.accumulateAndGet(c.outstandingAndQueued()[0], Math::max));
            }
            // meanwhile oncrpc4j's TCP server runs the same instance
            for (int i = 0; i < 100; i++) {
                long a = i;
                all.add(overTcp.call(
                                Demo.DEMO,
                                1,
                                Demo.ADD_1,
                                OpaqueAuth.NONE,
                                out -> out.putFixedOpaque(
                                        HostBridge.xdr(new org.panamardma.oncrpc4j.demo.AddArgs(a, a))),
                                XdrDecoder::getHyper,
                                TIMEOUT)
                        .thenAccept(sum -> assertEquals(2 * a, sum)));
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
        }
        assertEquals(8, c.negotiated().creditGrant());
        assertTrue(maxOutstanding.get() <= 8, "outstanding " + maxOutstanding.get());
        assertTrue(
                rdma.statistics().peakCallsInProgress() <= 8,
                "calls in progress at the server " + rdma.statistics().peakCallsInProgress());
        assertEquals(callsBefore + 1100, program.calls.get(), "every call ran once, on one instance");
        System.out.println(device.name() + " 1,000 calls: " + rdma.statistics());
    }

    @Test
    void aClientThatVanishesMidCallLeavesNothingBehind(RdmaTestDevice device) throws Exception {
        DemoService program = demo();
        Semaphore entered = new Semaphore(0);
        CountDownLatch gate = new CountDownLatch(1);
        RpcDispatchable gated = call -> {
            if (call.getProcedure() == Demo.READ_1) {
                entered.release();
                try {
                    gate.await(5, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            program.dispatchOncRpcCall(call);
        };
        OncRpcRdmaSvc rdma = bridge(device, gated, 8);
        String serverDevice = device.peer().orElseThrow().name();
        Map<String, Integer> before = resources(serverDevice);
        RpcRdmaClient c = RpcRdmaClient.connect(
                rdma.getInetSocketAddress(), RpcRdmaClientOptions.DEFAULTS.withTimeouts(TIMEOUT, TIMEOUT));
        int size = 1 << 20;
        try (Arena arena = Arena.ofShared()) {
            assertEquals(
                    42,
                    await(c.call(
                                    Demo.DEMO,
                                    1,
                                    Demo.ADD_1,
                                    OpaqueAuth.NONE,
                                    out -> out.putFixedOpaque(
                                            HostBridge.xdr(new org.panamardma.oncrpc4j.demo.AddArgs(40, 2))),
                                    ReplyExpectation.SMALL))
                            .resultsDecoder()
                            .getHyper());
            assertEquals(1, rdma.server().connectionCount());
            CompletableFuture<RpcRdmaReply> pending = c.call(
                    Demo.DEMO,
                    1,
                    Demo.READ_1,
                    OpaqueAuth.NONE,
                    out -> out.putFixedOpaque(HostBridge.xdr(new ReadArgs(DemoFiles.name(size), 0, size))),
                    ReplyExpectation.placedInto(arena.allocate(size), size + 64L));
            assertTrue(entered.tryAcquire(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the READ reached the program");
            c.close(); // the client goes, its Write chunk with it, while the program still reads
            Throwable t = assertInstanceOf(
                            ExecutionException.class,
                            org.junit.jupiter.api.Assertions.assertThrows(
                                    ExecutionException.class, () -> pending.get(60, TimeUnit.SECONDS)))
                    .getCause();
            assertInstanceOf(RpcRdmaException.ConnectionLost.class, t);
        }
        gate.countDown(); // the program replies now: the bridge's RDMA Write or Send fails on the dead connection
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT.toSeconds());
        while (rdma.server().connectionCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(0, rdma.server().connectionCount(), "the server let the connection go");
        Map<String, Integer> after = resources(serverDevice);
        while (!after.equals(before) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            after = resources(serverDevice);
        }
        System.out.println(serverDevice + " before: " + before + ", after: " + after);
        assertEquals(before, after, "queue pairs, CQs, PDs, MRs and cm_ids of the server device");
        while (rdma.fileChunkBudget().used() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(0, rdma.fileChunkBudget().used(), "the file chunk's memory given back");
        assertEquals(0, rdma.server().pinnedBudget().used());
        // and the next client is served
        RpcRdmaClient next = client(rdma);
        assertEquals(
                7,
                await(next.call(
                                Demo.DEMO,
                                1,
                                Demo.ADD_1,
                                OpaqueAuth.NONE,
                                out -> out.putFixedOpaque(
                                        HostBridge.xdr(new org.panamardma.oncrpc4j.demo.AddArgs(3, 4))),
                                ReplyExpectation.SMALL))
                        .resultsDecoder()
                        .getHyper());
    }

    @Test
    void badHeadersAreAnsweredAsTheServerAnswersThemForItsOwnPrograms(RdmaTestDevice device) throws Exception {
        OncRpcRdmaSvc rdma = bridge(device, demo(), 8);
        RpcRdmaServer plain = RpcRdmaServer.builder(
                        org.panamardma.oncrpc.RpcDispatcher.builder().build())
                .bind(new InetSocketAddress(peerAddress(device), PORTS.getAndIncrement()))
                .credits(8)
                .timeout(TIMEOUT)
                .start();
        open.add(plain);
        RawRequester toBridge = RawRequester.connect(rdma.getInetSocketAddress(), TIMEOUT);
        open.add(toBridge);
        RawRequester toPlain = RawRequester.connect(plain.address(), TIMEOUT);
        open.add(toPlain);
        int answered = 0;
        for (byte[] bad : BridgeEdgesTest.badHeaders()) {
            // each bad message, then a NULL call of the transport's own program (the Connection Configuration
            // Protocol, answered alike by both): everything up to the NULL's reply must be the same bytes
            int xid = XIDS.incrementAndGet();
            byte[] ping = HostBridge.concat(
                    HostBridge.header(
                            new org.panamardma.rpcrdma.RdmaMsg(xid, 8, org.panamardma.rpcrdma.ChunkLists.NONE)),
                    HostBridge.call(
                            xid,
                            2,
                            ConfigRdma.PROGRAM,
                            ConfigRdma.VERSION,
                            0,
                            OpaqueAuth.NONE,
                            org.dcache.oncrpc4j.xdr.XdrVoid.XDR_VOID));
            // one message at a time: the server serves each on a thread of its own, and an error's credit value is
            // the last one granted, so the bad message's answer (if any) must come before the NULL is sent
            toBridge.send(bad);
            toPlain.send(bad);
            List<byte[]> fromBridge = new ArrayList<>();
            List<byte[]> fromPlain = new ArrayList<>();
            addIfAny(fromBridge, toBridge.next(Duration.ofSeconds(3)));
            addIfAny(fromPlain, toPlain.next(Duration.ofSeconds(3)));
            toBridge.send(ping);
            toPlain.send(ping);
            fromBridge.addAll(toBridge.until(xid, TIMEOUT));
            fromPlain.addAll(toPlain.until(xid, TIMEOUT));
            assertEquals(
                    hex(fromPlain),
                    hex(fromBridge),
                    "answers to " + java.util.HexFormat.of().formatHex(bad));
            assertArrayEquals(ping(xid), fromBridge.getLast(), "the connection goes on: the NULL after it answered");
            answered += fromBridge.size() - 1;
        }
        assertEquals(12, answered, "ERR_VERS or ERR_CHUNK for 12 of them, the others dropped");
        assertEquals(0, demo.calls.get(), "no bad header reached the program");
        System.out.println(device.name() + " bad headers, bridge: " + rdma.statistics());
    }

    /** The messages as hex strings, in order. */
    static List<String> hex(List<byte[]> messages) {
        return messages.stream().map(java.util.HexFormat.of()::formatHex).toList();
    }

    private static void addIfAny(List<byte[]> to, byte[] message) {
        if (message != null) {
            to.add(message);
        }
    }

    /** The RDMA_MSG the server sends for a NULL of the Connection Configuration Protocol with XID {@code xid}. */
    static byte[] ping(int xid) {
        AcceptedReply ok = AcceptedReply.success(xid, OpaqueAuth.NONE);
        byte[] rpc = new byte[RpcMessageCodec.size(ok)];
        RpcMessageCodec.encode(ok, new org.panamardma.xdr.XdrEncoder(MemorySegment.ofArray(rpc)));
        return HostBridge.concat(
                HostBridge.header(new org.panamardma.rpcrdma.RdmaMsg(xid, 8, org.panamardma.rpcrdma.ChunkLists.NONE)),
                rpc);
    }

    /** The counts {@code rdma resource show} gives for {@code device}, without ctx (librdmacm keeps it open). */
    static Map<String, Integer> resources(String device) throws Exception {
        Map<String, Integer> counts = new java.util.TreeMap<>(RdmaResources.of(device));
        counts.remove("ctx");
        return counts;
    }
}
