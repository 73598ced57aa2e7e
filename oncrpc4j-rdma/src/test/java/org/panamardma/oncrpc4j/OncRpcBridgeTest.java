package org.panamardma.oncrpc4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.CompletionHandler;
import java.nio.file.Path;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.security.auth.Subject;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrLong;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.AuthStat;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RejectStat;
import org.panamardma.oncrpc.RejectedReply;
import org.panamardma.oncrpc4j.HostBridge.Answer;
import org.panamardma.oncrpc4j.HostBridge.CallPath;
import org.panamardma.oncrpc4j.HostBridge.Room;
import org.panamardma.oncrpc4j.demo.AddArgs;
import org.panamardma.oncrpc4j.demo.Blob;
import org.panamardma.oncrpc4j.demo.Demo;
import org.panamardma.oncrpc4j.demo.DemoService;
import org.panamardma.oncrpc4j.demo.Entry;
import org.panamardma.oncrpc4j.demo.FailArgs;
import org.panamardma.oncrpc4j.demo.ListArgs;
import org.panamardma.oncrpc4j.demo.ListRes;
import org.panamardma.oncrpc4j.demo.ReadArgs;
import org.panamardma.oncrpc4j.demo.ReadRes;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.server.ReplyPath;

/**
 * The bridge inside the RPC-over-RDMA server's protocol logic, on the host: the demo program (written as oncrpc4j
 * users write programs) answers over every call and reply path, its failures map as oncrpc4j maps them, replies
 * that come late, from other threads, twice or never, and what the bridge bounds.
 */
class OncRpcBridgeTest {
    static final int XID = 0x0c4_5eed;
    static final int[] SIZES = {0, 1, 5000, (1 << 20) + 3};

    @TempDir
    Path files;

    DemoService demo;
    OncRpcBridge bridge;
    HostBridge host;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        DemoFiles.create(files, SIZES);
        demo = new DemoService(files, Duration.ofMillis(30));
        bridge = bridge(Map.of(DemoService.PROGRAM, demo), null, Duration.ofSeconds(30), 64L << 20);
        host = new HostBridge(bridge);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    OncRpcBridge bridge(
            Map<OncRpcProgram, RpcDispatchable> programs,
            ExecutorService executor,
            Duration timeout,
            long fileChunkMemory) {
        OncRpcBridge b = new OncRpcBridge(
                programs,
                executor,
                call -> {},
                false,
                timeout,
                new FileChunkMemory(fileChunkMemory, Duration.ofMillis(200)));
        open.add(b);
        return b;
    }

    static byte[] demoCall(int procedure, org.dcache.oncrpc4j.xdr.XdrAble args) {
        return HostBridge.call(XID, 2, Demo.DEMO, Demo.DEMO_V1, procedure, OpaqueAuth.NONE, args);
    }

    static void assertSuccess(Answer a) {
        assertEquals(AcceptedReply.success(XID, OpaqueAuth.NONE), a.rpc());
    }

    static void assertAccepted(AcceptStat stat, Answer a) {
        assertEquals(AcceptedReply.failure(XID, OpaqueAuth.NONE, stat), a.rpc());
        assertEquals(0, a.results().length, "nothing after a " + stat + " reply");
    }

    static void assertAuthError(AuthStat why, Answer a) {
        assertEquals(RejectedReply.authError(XID, why), a.rpc());
    }

    // ------------------------------------------------------------------------------------------ every procedure

    @Test
    void nullAddAndListAnswerInline() throws IOException {
        Answer a = host.call(demoCall(Demo.NULL_1, XdrVoid.XDR_VOID), Room.NONE);
        assertEquals(ReplyPath.INLINE, a.outcome().path());
        assertSuccess(a);
        assertEquals(0, a.results().length);

        a = host.call(demoCall(Demo.ADD_1, new AddArgs(1L << 40, -7)), Room.NONE);
        assertSuccess(a);
        assertEquals((1L << 40) - 7, a.results(new XdrLong(0)).longValue());

        a = host.call(demoCall(Demo.LIST_1, new ListArgs(20, 30)), Room.NONE);
        assertSuccess(a);
        ListRes list = a.results(new ListRes());
        assertEquals(20, list.entries.size());
        assertEquals(new Entry(19_007, DemoService.name(19, 30), 1), list.entries.get(19));
        assertTrue(list.eof);
        assertEquals(3, host.statistics.inlineCalls());
        assertEquals(2, demo.calls.get(), "ADD and LIST (the stub answers NULL itself)");
    }

    @Test
    void echoTravelsEveryCallPathAndComesBackInlineOrInTheReplyChunk() throws IOException {
        for (int size : new int[] {0, 1, 3001, 100_003, 2 << 20}) {
            byte[] payload = DemoFiles.pattern(size);
            byte[] rpc = demoCall(Demo.ECHO_1, new Blob(payload));
            int dataAt = rpc.length - ((size + 3) & ~3); // the opaque's data, after its length word
            for (CallPath path : CallPath.values()) {
                if (path == CallPath.READ_CHUNK && size == 0) {
                    continue; // nothing to put in a chunk
                }
                boolean large = size > 4000; // more than the 4 KiB inline threshold
                Room room = large ? Room.reply(size + 4096) : Room.NONE;
                Answer a = host.call(rpc, path, dataAt, room);
                assertSuccess(a);
                assertArrayEquals(payload, a.results(new Blob()).value, "echo of " + size + " by " + path);
                assertEquals(
                        large ? ReplyPath.REPLY_CHUNK : ReplyPath.INLINE,
                        a.outcome().path(),
                        size + " by " + path);
                if (large) {
                    assertInstanceOf(RdmaNoMsg.class, a.header());
                }
            }
        }
        assertEquals(4, host.statistics.readChunkCalls());
        assertEquals(5, host.statistics.positionZeroCalls());
    }

    @Test
    void readPutsTheFileChunkIntoTheWriteChunkByRdmaWrite() throws IOException {
        for (int size : SIZES) {
            byte[] file = DemoFiles.pattern(size);
            long writesBefore = host.client.bytesWritten();
            Answer a = host.call(
                    demoCall(Demo.READ_1, new ReadArgs(DemoFiles.name(size), 0, size)), Room.write(size + 100));
            assertSuccess(a);
            assertEquals(ReplyPath.WRITE_LIST, a.outcome().path(), "READ of " + size);
            RdmaMsg msg = assertInstanceOf(RdmaMsg.class, a.header());
            assertEquals(size, msg.chunks().writeList().get(0).length(), "the Write chunk's returned length");
            assertArrayEquals(file, a.placed(), "the bytes RDMA-written");
            assertEquals(writesBefore + size, host.client.bytesWritten());
            // inline: reply header (24 bytes), status, eof, the data's length word; not the data nor its roundup
            assertEquals(24 + 12, a.reply().length - file.length - ((4 - (size & 3)) & 3));
            ReadRes res = a.results(new ReadRes());
            assertEquals(Demo.OK, res.status);
            assertTrue(res.eof);
            assertArrayEquals(file, res.data);
        }
        assertEquals(0, bridge.fileChunks().budget().used(), "file chunk memory given back");
        assertTrue(bridge.fileChunks().budget().peak() >= (1 << 20) + 3);
    }

    @Test
    void readWithoutAWriteChunkComesInlineOrInTheReplyChunk() throws IOException {
        Answer a = host.call(demoCall(Demo.READ_1, new ReadArgs(DemoFiles.name(5000), 1000, 100)), Room.NONE);
        assertEquals(ReplyPath.INLINE, a.outcome().path());
        ReadRes res = a.results(new ReadRes());
        assertArrayEquals(java.util.Arrays.copyOfRange(DemoFiles.pattern(5000), 1000, 1100), res.data);
        assertTrue(!res.eof);

        int big = (1 << 20) + 3;
        a = host.call(demoCall(Demo.READ_1, new ReadArgs(DemoFiles.name(big), 0, big)), Room.reply(big + 100));
        assertEquals(ReplyPath.REPLY_CHUNK, a.outcome().path());
        assertArrayEquals(DemoFiles.pattern(big), a.results(new ReadRes()).data);

        a = host.call(demoCall(Demo.READ_1, new ReadArgs("no-such-file", 0, 10)), Room.write(100));
        assertEquals(Demo.ENOENT, a.results(new ReadRes()).status);
        assertEquals(0, a.placed().length, "no file chunk, nothing written");
    }

    @Test
    void aFileChunkLargerThanTheWriteChunkIsAChunkError() throws IOException {
        Answer a = host.call(demoCall(Demo.READ_1, new ReadArgs(DemoFiles.name(5000), 0, 5000)), Room.write(4096));
        assertEquals(ReplyPath.ERR_CHUNK, a.outcome().path(), "as the server answers its own programs");
        assertInstanceOf(RdmaError.ChunkError.class, a.header());
        assertEquals(0, bridge.fileChunks().budget().used());
    }

    @Test
    void aReplyLargerThanTheReplyChunkIsAChunkError() throws IOException {
        Answer a = host.call(demoCall(Demo.LIST_1, new ListArgs(5000, 100)), Room.reply(64 << 10));
        assertEquals(ReplyPath.ERR_CHUNK, a.outcome().path());
        a = host.call(demoCall(Demo.LIST_1, new ListArgs(5000, 100)), Room.reply(1 << 20));
        assertEquals(ReplyPath.REPLY_CHUNK, a.outcome().path());
        assertEquals(5000, a.results(new ListRes()).entries.size());
    }

    // --------------------------------------------------------------------------------------- failures, mapped

    @Test
    void failuresMapAsOncrpc4jMapsThem() throws IOException {
        assertAccepted(
                AcceptStat.PROG_UNAVAIL,
                host.call(HostBridge.call(XID, 2, 0x2000_0001, 1, 0, OpaqueAuth.NONE, XdrVoid.XDR_VOID), Room.NONE));
        // another version of a known program: oncrpc4j keys programs by (number, version): PROG_UNAVAIL too
        assertAccepted(
                AcceptStat.PROG_UNAVAIL,
                host.call(HostBridge.call(XID, 2, Demo.DEMO, 2, 0, OpaqueAuth.NONE, XdrVoid.XDR_VOID), Room.NONE));
        assertAccepted(AcceptStat.PROC_UNAVAIL, host.call(demoCall(99, XdrVoid.XDR_VOID), Room.NONE));
        // ADD's two hypers cut to one: retrieveCall fails, GARBAGE_ARGS
        assertAccepted(
                AcceptStat.GARBAGE_ARGS,
                host.call(HostBridge.concat(demoCall(Demo.ADD_1, XdrVoid.XDR_VOID), new byte[8]), Room.NONE));
        assertAccepted(
                AcceptStat.SYSTEM_ERR, host.call(demoCall(Demo.FAIL_1, new FailArgs(Demo.FAIL_RUNTIME)), Room.NONE));
        assertAccepted(
                AcceptStat.GARBAGE_ARGS, host.call(demoCall(Demo.FAIL_1, new FailArgs(Demo.FAIL_XDR)), Room.NONE));
        assertAccepted(
                AcceptStat.GARBAGE_ARGS, host.call(demoCall(Demo.FAIL_1, new FailArgs(Demo.FAIL_IO)), Room.NONE));
        assertAuthError(
                AuthStat.AUTH_TOOWEAK, host.call(demoCall(Demo.FAIL_1, new FailArgs(Demo.FAIL_AUTH)), Room.NONE));
        assertAccepted(AcceptStat.SYSTEM_ERR, host.call(demoCall(Demo.LIST_1, new ListArgs(-1, 10)), Room.NONE));
        Answer a = host.call(demoCall(Demo.FAIL_1, new FailArgs(99)), Room.NONE);
        assertSuccess(a);
        assertEquals(0, a.results().length);
    }

    @Test
    void callHeadersOncrpc4jRefusesAreRejectedAsItRejectsThem() throws IOException {
        // RPC version 3: oncrpc4j's RpcMismatchReply(version, 2): low is the caller's version, high 2
        assertEquals(
                new RejectedReply(XID, RejectStat.RPC_MISMATCH, new org.panamardma.oncrpc.MismatchInfo(3, 2), null),
                host.call(HostBridge.call(XID, 3, Demo.DEMO, 1, 0, OpaqueAuth.NONE, XdrVoid.XDR_VOID), Room.NONE)
                        .rpc());
        // a flavor oncrpc4j does not know, AUTH_TLS (no TLS over RDMA) and RPCSEC_GSS (no GSS filter here)
        for (int flavor : new int[] {99, 7, 6}) {
            assertAuthError(
                    AuthStat.AUTH_FAILED,
                    host.call(
                            HostBridge.call(
                                    XID, 2, Demo.DEMO, 1, 0, new OpaqueAuth(flavor, new byte[8]), XdrVoid.XDR_VOID),
                            Room.NONE));
        }
        // an AUTH_SYS body that is not one: machine name longer than the body
        assertAuthError(
                AuthStat.AUTH_BADCRED,
                host.call(
                        HostBridge.call(
                                XID,
                                2,
                                Demo.DEMO,
                                1,
                                0,
                                new OpaqueAuth(
                                        1, HostBridge.concat(new byte[4], new byte[] {0, 0, 0, 100}, new byte[8])),
                                XdrVoid.XDR_VOID),
                        Room.NONE));
        assertEquals(0, demo.calls.get(), "none of them reached the program");
    }

    @Test
    void authSysReachesTheProgramAsOncrpc4jDecodesIt() throws IOException {
        AtomicReference<RpcCall> seen = new AtomicReference<>();
        AtomicReference<Subject> inside = new AtomicReference<>();
        OncRpcBridge recording = new OncRpcBridge(
                Map.of(DemoService.PROGRAM, call -> {
                    inside.set(Subject.current());
                    demo.dispatchOncRpcCall(call);
                }),
                null,
                seen::set,
                true,
                Duration.ofSeconds(5),
                new FileChunkMemory(1 << 20, Duration.ZERO));
        open.add(recording);
        OpaqueAuth sys = new AuthSysParms(17, "client.example", 4242, 100, List.of(100, 200)).toOpaqueAuth();
        Answer a = new HostBridge(recording)
                .call(HostBridge.call(XID, 2, Demo.DEMO, 1, Demo.ADD_1, sys, new AddArgs(2, 3)), Room.NONE);
        assertSuccess(a);
        assertEquals(5, a.results(new XdrLong(0)).longValue());
        RpcAuthTypeUnix unix =
                assertInstanceOf(RpcAuthTypeUnix.class, seen.get().getCredential());
        assertEquals(4242, unix.uid());
        assertEquals(HostBridge.REMOTE, seen.get().getTransport().getRemoteSocketAddress());
        assertEquals(HostBridge.LOCAL, seen.get().getTransport().getLocalSocketAddress());
        assertNotNull(inside.get(), "the program ran as the call's Subject");
        assertTrue(
                inside.get().getPrincipals().stream().map(Principal::getName).anyMatch("4242"::equals),
                "uid principal in " + inside.get().getPrincipals());
    }

    // ------------------------------------------------------------------------------- replies: when and where

    @Test
    void aReplyFromAnotherThreadAfterDispatchReturnedIsSent() throws IOException {
        byte[] payload = DemoFiles.pattern(777);
        Answer a = host.call(demoCall(Demo.ECHO_LATER_1, new Blob(payload)), Room.NONE);
        assertSuccess(a);
        assertArrayEquals(payload, a.results(new Blob()).value);
    }

    @Test
    void programsRunOnTheExecutorWhenOneIsGiven() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> new Thread(r, "demo-worker"));
        open.add(pool::shutdownNow);
        AtomicReference<String> thread = new AtomicReference<>();
        OncRpcBridge b = bridge(
                Map.of(DemoService.PROGRAM, call -> {
                    thread.set(Thread.currentThread().getName());
                    demo.dispatchOncRpcCall(call);
                }),
                pool,
                Duration.ofSeconds(5),
                1 << 20);
        Answer a = new HostBridge(b).call(demoCall(Demo.ADD_1, new AddArgs(40, 2)), Room.NONE);
        assertEquals(42, a.results(new XdrLong(0)).longValue());
        assertEquals("demo-worker", thread.get());

        pool.shutdown(); // from now on it refuses work: SYSTEM_ERR, not a call left unanswered
        assertTrue(pool.awaitTermination(5, TimeUnit.SECONDS));
        assertAccepted(
                AcceptStat.SYSTEM_ERR, new HostBridge(b).call(demoCall(Demo.ADD_1, new AddArgs(1, 2)), Room.NONE));
    }

    @Test
    void aCallNeverAnsweredIsSystemErrAfterTheReplyTimeoutAndALateReplyIsRefused() throws Exception {
        CompletableFuture<RpcCall> kept = new CompletableFuture<>();
        OncRpcBridge b = bridge(
                Map.of(DemoService.PROGRAM, call -> {
                    if (call.getProcedure() == Demo.SILENT_1) {
                        kept.complete(call);
                    }
                    demo.dispatchOncRpcCall(call);
                }),
                null,
                Duration.ofMillis(300),
                1 << 20);
        long t0 = System.nanoTime();
        Answer a = new HostBridge(b).call(demoCall(Demo.SILENT_1, XdrVoid.XDR_VOID), Room.NONE);
        assertAccepted(AcceptStat.SYSTEM_ERR, a);
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(300));
        assertEquals(1, b.unanswered());

        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        kept.get().registerSendOnceListener(listener(null, refused));
        kept.get().reply(XdrVoid.XDR_VOID);
        assertInstanceOf(IllegalStateException.class, refused.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aSecondReplyToOneCallIsRefusedAndTheFirstIsSent() throws Exception {
        CompletableFuture<Throwable> second = new CompletableFuture<>();
        OncRpcBridge b = bridge(
                Map.of(DemoService.PROGRAM, call -> {
                    call.retrieveCall(XdrVoid.XDR_VOID);
                    call.reply(new XdrLong(1));
                    // oncrpc4j encodes the second reply into the call's Xdr again: the first must not change meanwhile
                    call.registerSendOnceListener(listener(null, second));
                    call.reply(new XdrLong(2));
                }),
                null,
                Duration.ofSeconds(5),
                1 << 20);
        Answer a = new HostBridge(b).call(demoCall(Demo.NULL_1, XdrVoid.XDR_VOID), Room.NONE);
        assertEquals(1, a.results(new XdrLong(0)).longValue());
        assertInstanceOf(IllegalStateException.class, second.get(5, TimeUnit.SECONDS));
    }

    @Test
    void theProgramsSendListenerHearsOfTheReplyWithItsSize() throws Exception {
        CompletableFuture<Integer> sent = new CompletableFuture<>();
        OncRpcBridge b = bridge(
                Map.of(DemoService.PROGRAM, call -> {
                    call.registerSendOnceListener(listener(sent, null));
                    demo.dispatchOncRpcCall(call);
                }),
                null,
                Duration.ofSeconds(5),
                1 << 20);
        Answer a = new HostBridge(b)
                .call(demoCall(Demo.READ_1, new ReadArgs(DemoFiles.name(5000), 0, 5000)), Room.write(5000));
        assertEquals(5000, a.placed().length);
        assertEquals(a.reply().length, sent.get(5, TimeUnit.SECONDS), "the reply's size in the XDR stream");
    }

    @Test
    void aCallToTheClientThroughTheTransportIsRefused() throws Exception {
        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        OncRpcBridge b = bridge(
                Map.of(DemoService.PROGRAM, call -> {
                    call.retrieveCall(XdrVoid.XDR_VOID);
                    // a backchannel call: RpcCall.call sends a CALL message through the call's transport
                    call.call(0, XdrVoid.XDR_VOID, new CompletionHandler<>() {
                        @Override
                        public void completed(
                                org.dcache.oncrpc4j.rpc.RpcReply result,
                                org.dcache.oncrpc4j.rpc.RpcTransport attachment) {
                            refused.complete(null);
                        }

                        @Override
                        public void failed(Throwable exc, org.dcache.oncrpc4j.rpc.RpcTransport attachment) {
                            refused.complete(exc);
                        }
                    });
                    call.reply(new XdrLong(3));
                }),
                null,
                Duration.ofSeconds(5),
                1 << 20);
        Answer a = new HostBridge(b).call(demoCall(Demo.NULL_1, XdrVoid.XDR_VOID), Room.NONE);
        assertEquals(3, a.results(new XdrLong(0)).longValue(), "the reply still goes");
        assertInstanceOf(UnsupportedOperationException.class, refused.get(5, TimeUnit.SECONDS));
    }

    @Test
    void closingTheBridgeAnswersTheCallsWaitingAtOnce() throws Exception {
        CompletableFuture<Void> entered = new CompletableFuture<>();
        OncRpcBridge b = bridge(
                Map.of(DemoService.PROGRAM, call -> {
                    entered.complete(null);
                    demo.dispatchOncRpcCall(call);
                }),
                null,
                Duration.ofMinutes(5),
                1 << 20);
        CompletableFuture<Answer> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return new HostBridge(b).call(demoCall(Demo.SILENT_1, XdrVoid.XDR_VOID), Room.NONE);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        entered.get(10, TimeUnit.SECONDS);
        long t0 = System.nanoTime();
        b.close();
        assertAccepted(AcceptStat.SYSTEM_ERR, waiting.get(5, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "at once, not after the 5 minutes");
        assertAccepted(
                AcceptStat.SYSTEM_ERR, new HostBridge(b).call(demoCall(Demo.NULL_1, XdrVoid.XDR_VOID), Room.NONE));
    }

    // ------------------------------------------------------------------------------------------------ bounds

    @Test
    void aFileChunkBeyondItsMemoryIsSystemErrAndHoldsNothing() throws IOException {
        OncRpcBridge b = bridge(Map.of(DemoService.PROGRAM, demo), null, Duration.ofSeconds(5), 4096);
        HostBridge small = new HostBridge(b);
        assertAccepted(
                AcceptStat.SYSTEM_ERR,
                small.call(demoCall(Demo.READ_1, new ReadArgs(DemoFiles.name(5000), 0, 5000)), Room.write(8192)));
        assertEquals(0, b.fileChunks().budget().used());
        Answer a = small.call(demoCall(Demo.READ_1, new ReadArgs(DemoFiles.name(5000), 0, 4096)), Room.write(8192));
        assertArrayEquals(java.util.Arrays.copyOf(DemoFiles.pattern(5000), 4096), a.placed(), "4 KiB fit");
        assertEquals(0, b.fileChunks().budget().used());
    }

    @Test
    void countsLargerThanTheCallAreGarbageBeforeAnythingIsAllocated() throws IOException {
        // ECHO whose opaque declares 2 GiB - 1 in a call of a few dozen bytes: oncrpc4j alone would allocate first
        byte[] rpc = HostBridge.concat(demoCall(Demo.NULL_1, XdrVoid.XDR_VOID), new byte[] {0x7f, -1, -1, -1});
        rpc[20 + 3] = Demo.ECHO_1; // the procedure word of the call header
        long before = allocated();
        assertAccepted(AcceptStat.GARBAGE_ARGS, host.call(rpc, Room.NONE));
        assertTrue(allocated() - before < 16 << 20, "allocated " + (allocated() - before) + " bytes");
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }

    static CompletionHandler<Integer, java.net.InetSocketAddress> listener(
            CompletableFuture<Integer> completed, CompletableFuture<Throwable> failed) {
        return new CompletionHandler<>() {
            @Override
            public void completed(Integer result, java.net.InetSocketAddress attachment) {
                if (completed != null) {
                    completed.complete(result);
                }
            }

            @Override
            public void failed(Throwable exc, java.net.InetSocketAddress attachment) {
                if (failed != null) {
                    failed.complete(exc);
                }
            }
        };
    }
}
