package org.panamardma.oncrpc.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AuthFlavor;
import org.panamardma.oncrpc.AuthStat;
import org.panamardma.oncrpc.MismatchInfo;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RecordMarkingEncoder;
import org.panamardma.oncrpc.RejectStat;
import org.panamardma.oncrpc.RejectedReply;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcReply;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;

class TcpRpcTest {
    static final int PROG = 400_123;
    static final int MAX = 16 << 20;
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    static final int NULL = 0;
    static final int ECHO = 1; // results from the server's copy of the call, gathered
    static final int ECHO_INLINE = 2; // results copied into the reply buffer
    static final int FAIL = 3;
    static final int DELAYED_ID = 4;
    static final int BLOCK = 5;

    private final CountDownLatch unblock = new CountDownLatch(1);
    private final CountDownLatch blocked = new CountDownLatch(3);
    private TcpRpcServer server;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        RpcDispatcher dispatcher = RpcDispatcher.builder()
                .register(PROG, 1, NULL, in -> "", (a, c) -> XdrEncodable.VOID)
                .register(
                        PROG,
                        1,
                        ECHO,
                        in -> in.getOpaque(MAX),
                        (MemorySegment data, RpcCall c) -> out -> out.putEligibleOpaque(data, MAX))
                .register(
                        PROG,
                        1,
                        ECHO_INLINE,
                        in -> in.getOpaque(MAX),
                        (MemorySegment data, RpcCall c) -> out -> out.putOpaque(data, MAX))
                .register(PROG, 1, FAIL, in -> "", (a, c) -> {
                    throw new IllegalStateException("boom");
                })
                .register(PROG, 1, DELAYED_ID, in -> in.getInt(), (Integer id, RpcCall c) -> {
                    Thread.sleep(ThreadLocalRandom.current().nextInt(3)); // complete out of order
                    return out -> out.putInt(id);
                })
                .register(PROG, 1, BLOCK, in -> "", (a, c) -> {
                    blocked.countDown();
                    unblock.await();
                    return XdrEncodable.VOID;
                })
                .register(PROG, 2, NULL, in -> "", (a, c) -> XdrEncodable.VOID)
                .build();
        server = TcpRpcServer.builder(dispatcher)
                .maxRecordSize(MAX + 1024)
                .replyBufferSize(256 << 10)
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        unblock.countDown();
        for (AutoCloseable c : toClose) {
            c.close();
        }
        server.close();
    }

    private TcpRpcClient client(int port) throws IOException {
        TcpRpcClient client =
                TcpRpcClient.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), MAX + 1024);
        toClose.add(client);
        return client;
    }

    private TcpRpcClient client() throws IOException {
        return client(server.port());
    }

    private static Throwable failure(CompletableFuture<?> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void boundPortIsReported() {
        assertTrue(server.port() > 0);
        assertEquals(server.port(), server.address().getPort());
    }

    @Test
    void nullProcedureRoundTrip() throws Exception {
        TcpRpcClient client = client();
        Boolean empty = client.call(PROG, 1, NULL, XdrEncodable.VOID, XdrDecoder::atEnd, TIMEOUT)
                .get();
        assertTrue(empty, "NULL has no results");
        assertTrue(client.invoke(PROG, 1, NULL, OpaqueAuth.NONE, XdrEncodable.VOID, XdrDecoder::atEnd, TIMEOUT));
        assertEquals(0, client.pendingCalls());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 3, 64 << 10, 8 << 20})
    void echoIsByteForByte(int size) throws Exception {
        byte[] payload = new byte[size];
        new Random(size).nextBytes(payload);
        TcpRpcClient client = client();
        XdrEncodable eligible = out -> out.putEligibleOpaque(MemorySegment.ofArray(payload), MAX);
        byte[] echoed = client.call(PROG, 1, ECHO, eligible, in -> in.getOpaqueBytes(MAX), TIMEOUT)
                .get();
        assertArrayEquals(payload, echoed);
        if (size <= 64 << 10) { // inline on both sides: the client's buffer grows, the server's holds 256 KiB
            XdrEncodable inline = out -> out.putOpaque(payload, MAX);
            assertArrayEquals(
                    payload,
                    client.call(PROG, 1, ECHO_INLINE, inline, in -> in.getOpaqueBytes(MAX), TIMEOUT)
                            .get());
        }
    }

    @Test
    void inlineResultsLargerThanTheReplyBufferAreSystemErr() throws Exception {
        byte[] payload = new byte[300 << 10];
        RpcReplyException e = assertInstanceOf(
                RpcReplyException.class,
                failure(client().call(
                                PROG,
                                1,
                                ECHO_INLINE,
                                out -> out.putEligibleOpaque(MemorySegment.ofArray(payload), MAX),
                                in -> in.getOpaqueBytes(MAX),
                                TIMEOUT)));
        assertEquals(AcceptStat.SYSTEM_ERR, e.acceptStat());
    }

    @Test
    void thousandConcurrentCallsOnOneConnectionAreMatched() throws Exception {
        TcpRpcClient client = client();
        List<CompletableFuture<Integer>> calls = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            int id = i;
            calls.add(client.call(PROG, 1, DELAYED_ID, out -> out.putInt(id * 7919), XdrDecoder::getInt, TIMEOUT));
        }
        for (int i = 0; i < calls.size(); i++) {
            assertEquals(i * 7919, calls.get(i).get(10, TimeUnit.SECONDS));
        }
        assertEquals(0, client.pendingCalls());
    }

    @Test
    void concurrentCallersOnOneConnection() throws Exception {
        TcpRpcClient client = client();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 8; t++) {
            int base = t * 1000;
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        int id = base + i;
                        byte[] data = new byte[id % 97 * 300];
                        java.util.Arrays.fill(data, (byte) id);
                        assertArrayEquals(
                                data,
                                client.invoke(
                                        PROG,
                                        1,
                                        ECHO,
                                        OpaqueAuth.NONE,
                                        out -> out.putEligibleOpaque(MemorySegment.ofArray(data), MAX),
                                        in -> in.getOpaqueBytes(MAX),
                                        TIMEOUT));
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(List.of(), errors);
    }

    private RpcReplyException rpcError(
            TcpRpcClient client, int program, int version, int procedure, OpaqueAuth credential) {
        Throwable cause = failure(
                client.call(program, version, procedure, credential, XdrEncodable.VOID, XdrDecoder::atEnd, TIMEOUT));
        return assertInstanceOf(RpcReplyException.class, cause);
    }

    @Test
    void acceptedErrorsReachTheClientTyped() throws Exception {
        TcpRpcClient client = client();
        RpcReplyException progUnavail = rpcError(client, PROG + 1, 1, NULL, OpaqueAuth.NONE);
        assertEquals(AcceptStat.PROG_UNAVAIL, progUnavail.acceptStat());
        assertTrue(progUnavail.getMessage().startsWith("PROG_UNAVAIL"), progUnavail.getMessage());

        RpcReplyException progMismatch = rpcError(client, PROG, 7, NULL, OpaqueAuth.NONE);
        assertEquals(AcceptStat.PROG_MISMATCH, progMismatch.acceptStat());
        assertEquals(new MismatchInfo(1, 2), progMismatch.mismatch());
        assertTrue(progMismatch.getMessage().contains("versions 1 to 2"), progMismatch.getMessage());

        assertEquals(
                AcceptStat.PROC_UNAVAIL,
                rpcError(client, PROG, 2, ECHO, OpaqueAuth.NONE).acceptStat());
        // ECHO wants an opaque and gets nothing
        assertEquals(
                AcceptStat.GARBAGE_ARGS,
                rpcError(client, PROG, 1, ECHO, OpaqueAuth.NONE).acceptStat());
        RpcReplyException systemErr = rpcError(client, PROG, 1, FAIL, OpaqueAuth.NONE);
        assertEquals(AcceptStat.SYSTEM_ERR, systemErr.acceptStat());
        assertNull(systemErr.rejectStat());
        assertTrue(client.isOpen(), "error replies leave the connection up");
    }

    @Test
    void authErrorReachesTheClientTyped() throws Exception {
        OpaqueAuth gss = new OpaqueAuth(AuthFlavor.RPCSEC_GSS, new byte[8]);
        RpcReplyException e = rpcError(client(), PROG, 1, NULL, gss);
        assertEquals(RejectStat.AUTH_ERROR, e.rejectStat());
        assertEquals(AuthStat.AUTH_BADCRED, e.authStat());
        assertNull(e.acceptStat());
        assertTrue(e.getMessage().startsWith("AUTH_ERROR AUTH_BADCRED"), e.getMessage());
    }

    @Test
    void serverAnswersAnotherRpcVersionWithRpcMismatch() throws Exception {
        try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            raw.setSoTimeout(10_000);
            writeMessage(raw.getOutputStream(), new RpcCall(77, 3, PROG, 1, NULL, OpaqueAuth.NONE, OpaqueAuth.NONE));
            RpcReply reply = (RpcReply) RpcMessageCodec.decode(new XdrDecoder(readRecord(raw.getInputStream())));
            assertEquals(RejectedReply.rpcMismatch(77, 2, 2), reply);
        }
    }

    @Test
    void rpcMismatchReachesTheClientTyped() throws Exception {
        try (FakeServer fake = new FakeServer(socket -> {
            int xid = new XdrDecoder(readRecord(socket.getInputStream())).getInt();
            writeMessage(socket.getOutputStream(), RejectedReply.rpcMismatch(xid, 2, 2));
            socket.getInputStream().read(); // until the client goes
        })) {
            RpcReplyException e = rpcError(client(fake.port()), PROG, 1, NULL, OpaqueAuth.NONE);
            assertEquals(RejectStat.RPC_MISMATCH, e.rejectStat());
            assertEquals(new MismatchInfo(2, 2), e.mismatch());
            assertTrue(e.getMessage().startsWith("RPC_MISMATCH"), e.getMessage());
        }
    }

    @Test
    void serverThatNeverAnswersTimesOut() throws Exception {
        try (FakeServer silent =
                new FakeServer(socket -> socket.getInputStream().transferTo(OutputStream.nullOutputStream()))) {
            TcpRpcClient client = client(silent.port());
            long start = System.nanoTime();
            CompletableFuture<Boolean> call =
                    client.call(PROG, 1, NULL, XdrEncodable.VOID, XdrDecoder::atEnd, Duration.ofMillis(200));
            RpcTimeoutException e = assertInstanceOf(RpcTimeoutException.class, failure(call));
            assertTrue(System.nanoTime() - start >= Duration.ofMillis(200).toNanos());
            assertTrue(e.getMessage().contains("within 200 ms"), e.getMessage());
            assertEquals(0, client.pendingCalls());
            assertTrue(client.isOpen(), "a timeout does not close the connection");
        }
    }

    @Test
    void peerClosingTheConnectionFailsPendingCalls() throws Exception {
        CountDownLatch sent = new CountDownLatch(1);
        try (FakeServer closing = new FakeServer(socket -> {
            sent.await();
            socket.close();
        })) {
            TcpRpcClient client = client(closing.port());
            List<CompletableFuture<Boolean>> calls = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                calls.add(client.call(PROG, 1, NULL, XdrEncodable.VOID, XdrDecoder::atEnd, TIMEOUT));
            }
            sent.countDown();
            for (CompletableFuture<Boolean> call : calls) {
                RpcConnectionException e = assertInstanceOf(RpcConnectionException.class, failure(call));
                assertTrue(e.getMessage().contains("closed by"), e.getMessage());
            }
            assertFalse(client.isOpen());
            assertInstanceOf(
                    RpcConnectionException.class,
                    failure(client.call(PROG, 1, NULL, XdrEncodable.VOID, XdrDecoder::atEnd, TIMEOUT)));
        }
    }

    @Test
    void serverCloseFailsPendingCalls() throws Exception {
        TcpRpcClient client = client();
        List<CompletableFuture<Boolean>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            calls.add(client.call(PROG, 1, BLOCK, XdrEncodable.VOID, XdrDecoder::atEnd, TIMEOUT));
        }
        assertTrue(blocked.await(10, TimeUnit.SECONDS));
        server.close();
        for (CompletableFuture<Boolean> call : calls) {
            assertInstanceOf(RpcConnectionException.class, failure(call));
        }
    }

    @Test
    void badConnectionsAreClosedAndTheServerServesOthers() throws Exception {
        TcpRpcClient before = client();
        assertTrue(before.invoke(PROG, 1, NULL, OpaqueAuth.NONE, XdrEncodable.VOID, XdrDecoder::atEnd, TIMEOUT));
        byte[] garbage = new byte[4096];
        new Random(7).nextBytes(garbage);
        garbage[0] = 0x7F; // a fragment header announcing ~2 GiB: over the limit
        assertClosedByServer(garbage, false);
        // well framed, but not a call: msg_type 7
        assertClosedByServer(new byte[] {(byte) 0x80, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 7}, false);
        // well framed, a reply where a call belongs
        assertClosedByServer(new byte[] {(byte) 0x80, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 9}, false);
        // a record just over the limit
        int over = MAX + 1025;
        assertClosedByServer(
                new byte[] {(byte) (over >>> 24), (byte) (over >>> 16), (byte) (over >>> 8), (byte) over}, false);
        // a peer that vanishes in the middle of a record
        assertClosedByServer(new byte[] {(byte) 0x80, 0, 1, 0, 1, 2, 3}, true);

        assertTrue(
                before.invoke(PROG, 1, NULL, OpaqueAuth.NONE, XdrEncodable.VOID, XdrDecoder::atEnd, TIMEOUT),
                "an earlier connection still works");
        assertTrue(
                client().invoke(PROG, 1, NULL, OpaqueAuth.NONE, XdrEncodable.VOID, XdrDecoder::atEnd, TIMEOUT),
                "a new connection works");
        assertTimeoutPreemptively(
                Duration.ofSeconds(10),
                () -> {
                    while (server.connectionCount() != 2) {
                        Thread.sleep(5);
                    }
                },
                "bad connections are gone");
    }

    private void assertClosedByServer(byte[] bytes, boolean vanish) throws IOException {
        try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            raw.setSoTimeout(10_000);
            raw.getOutputStream().write(bytes);
            raw.getOutputStream().flush();
            if (vanish) {
                return;
            }
            try {
                assertEquals(-1, raw.getInputStream().read(), "server closes the connection");
            } catch (java.net.SocketException reset) {
                // closed with unread data: a reset is a close too
            }
        }
    }

    // --- helpers: raw record I/O and a scripted peer ---

    static void writeMessage(OutputStream out, org.panamardma.oncrpc.RpcMessage message) throws IOException {
        byte[] body = new byte[RpcMessageCodec.size(message)];
        RpcMessageCodec.encode(message, new XdrEncoder(MemorySegment.ofArray(body)));
        RecordMarkingEncoder framing = new RecordMarkingEncoder();
        byte[] framed = new byte[(int) framing.framedSize(body.length)];
        framing.encode(MemorySegment.ofArray(body), MemorySegment.ofArray(framed), 0);
        out.write(framed);
        out.flush();
    }

    static MemorySegment readRecord(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int header = data.readInt();
        assertTrue(header < 0, "single last fragment");
        byte[] record = new byte[header & 0x7FFF_FFFF];
        data.readFully(record);
        return MemorySegment.ofArray(record).asReadOnly();
    }

    interface SocketScript {
        void run(Socket socket) throws Exception;
    }

    /** Accepts one connection and runs a script on it. */
    static final class FakeServer implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        private final Thread thread;

        FakeServer(SocketScript script) throws IOException {
            thread = Thread.ofVirtual().start(() -> {
                try (Socket socket = listener.accept()) {
                    script.run(socket);
                } catch (Exception ignored) {
                    // the test sees the effect on the client
                }
            });
        }

        int port() {
            return listener.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            listener.close();
            thread.interrupt();
        }
    }
}
