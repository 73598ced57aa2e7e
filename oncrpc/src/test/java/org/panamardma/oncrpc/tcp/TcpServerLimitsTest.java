package org.panamardma.oncrpc.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.panamardma.oncrpc.tcp.TcpRpcTest.readRecord;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.ReplyResources;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.limits.ConnectionAdmission.Refusal;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * {@link TcpRpcServer}'s limits (issue 25, item 2), each against a hostile client on loopback: a client that never
 * reads its socket, connection caps in all and per address, idle and half-open connections, trickled records, and
 * calls beyond the memory budget. Verdicts wait for events (a reply, a close, a counter), never for a fixed time;
 * the one figure with a time bound (the delay a non-reader causes) is bounded by the timeout under test plus the
 * watchdog's period and a generous margin for a loaded machine.
 */
class TcpServerLimitsTest {
    private static final int PROG = 400_125;
    private static final int NULL = 0;
    /** READ: an int count in; that many bytes out, from a pooled native buffer held until the reply is written. */
    private static final int READ = 1;
    /** BLOCK: waits until the test opens the gate. */
    private static final int BLOCK = 2;

    private static final int MIB = 1 << 20;
    private static final Duration LONG = Duration.ofSeconds(60);

    private final List<AutoCloseable> open = new ArrayList<>();
    private final CountDownLatch gate = new CountDownLatch(1);
    private final CountDownLatch blocked = new CountDownLatch(1);

    @AfterEach
    void closeAll() throws Exception {
        gate.countDown();
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /**
     * The NFS server's READ as it was at 5c5f9a1 (IoBuffers): a fixed pool of native buffers, taken with a wait
     * that has no deadline, given back only once the reply has been written.
     */
    private static final class BufferPool implements AutoCloseable {
        private final Arena arena = Arena.ofShared();
        private final BlockingQueue<MemorySegment> free;

        BufferPool(int count, int size) {
            free = new ArrayBlockingQueue<>(count);
            for (int i = 0; i < count; i++) {
                free.add(arena.allocate(size));
            }
        }

        MemorySegment take() throws InterruptedException {
            return free.take();
        }

        void giveBack(MemorySegment s) {
            free.add(s);
        }

        int available() {
            return free.size();
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    private RpcDispatcher dispatcher(BufferPool pool) {
        return RpcDispatcher.builder()
                .register(PROG, 1, NULL, in -> "", (a, c) -> XdrEncodable.VOID)
                .register(PROG, 1, READ, XdrDecoder::getInt, (Integer count, RpcCall c) -> {
                    MemorySegment buffer = pool.take();
                    ReplyResources.holdUntilSent(() -> pool.giveBack(buffer));
                    MemorySegment data = buffer.asSlice(0, count);
                    data.fill((byte) 0x5a);
                    return out -> out.putEligibleOpaque(data, MIB);
                })
                .register(PROG, 1, BLOCK, in -> "", (a, c) -> {
                    blocked.countDown();
                    gate.await();
                    return XdrEncodable.VOID;
                })
                .build();
    }

    private TcpRpcServer start(TcpRpcServer.Builder b) throws IOException {
        TcpRpcServer s = b.start();
        open.add(s);
        return s;
    }

    private TcpRpcClient client(TcpRpcServer s) throws IOException {
        TcpRpcClient c =
                TcpRpcClient.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), s.port()), 2 * MIB);
        open.add(c);
        return c;
    }

    /** A raw connection from {@code from} (any 127.x address is this host's on Linux). */
    private Socket raw(TcpRpcServer s, String from) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096); // before connecting, so that the window stays small
        socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), s.port()));
        socket.setSoTimeout((int) LONG.toMillis());
        open.add(socket);
        return socket;
    }

    private static void call(Socket socket, int xid, int procedure, XdrEncodable args) throws IOException {
        byte[] body = new byte[128 << 10];
        org.panamardma.xdr.XdrEncoder e = new org.panamardma.xdr.XdrEncoder(MemorySegment.ofArray(body));
        RpcMessageCodec.encode(RpcCall.of(xid, PROG, 1, procedure, OpaqueAuth.NONE, OpaqueAuth.NONE), e);
        args.encodeTo(e);
        writeRaw(
                socket.getOutputStream(),
                MemorySegment.ofArray(body).asSlice(0, e.position()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    private static void writeRaw(OutputStream out, byte[] record) throws IOException {
        byte[] framed = new byte[record.length + 4];
        int header = 0x8000_0000 | record.length;
        framed[0] = (byte) (header >>> 24);
        framed[1] = (byte) (header >>> 16);
        framed[2] = (byte) (header >>> 8);
        framed[3] = (byte) header;
        System.arraycopy(record, 0, framed, 4, record.length);
        out.write(framed);
        out.flush();
    }

    /** @return whether the server closed the connection (end of stream or reset) within the wait */
    private static boolean closedByServer(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            while (in.read() >= 0) {
                // replies still in flight; the close comes after them
            }
            return true;
        } catch (SocketException reset) {
            return true;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + LONG.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "never: " + what);
            Thread.sleep(5);
        }
    }

    private static boolean nullAnswered(TcpRpcClient c) throws Exception {
        return c.call(PROG, 1, NULL, XdrEncodable.VOID, XdrDecoder::atEnd, LONG)
                .get(LONG.toSeconds(), TimeUnit.SECONDS);
    }

    /**
     * The case of issue 25 (item 2), which at 5c5f9a1 got no answer within 20 s: a raw client sends 64 READs of
     * 1 MiB and never reads its socket, so the server's writes block with every pooled buffer held by its replies;
     * another client's READ of 1 MiB is then answered once the write timeout has cut the slow reader off, and the
     * memory its calls held is back.
     */
    @Test
    void aClientThatNeverReadsDelaysAnothersReadByNoMoreThanTheWriteTimeout() throws Exception {
        BufferPool pool = new BufferPool(4, MIB);
        open.add(pool);
        Duration writeTimeout = Duration.ofSeconds(2);
        TcpRpcServer s = start(TcpRpcServer.builder(dispatcher(pool))
                .writeTimeout(writeTimeout)
                .replyBufferSize(4096));
        TcpRpcClient good = client(s);
        byte[] alone = good.call(PROG, 1, READ, out -> out.putInt(MIB), in -> in.getOpaqueBytes(MIB), LONG)
                .get(60, TimeUnit.SECONDS);
        assertEquals(MIB, alone.length);

        Socket slow = raw(s, "127.0.0.1");
        long t0 = System.nanoTime();
        for (int i = 0; i < 64; i++) {
            call(slow, 0x5100 + i, READ, out -> out.putInt(MIB));
        }
        await(() -> pool.available() == 0, "the slow reader's replies hold every buffer");
        long stalled = System.nanoTime();

        long sent = System.nanoTime();
        byte[] data = good.call(PROG, 1, READ, out -> out.putInt(MIB), in -> in.getOpaqueBytes(MIB), LONG)
                .get(60, TimeUnit.SECONDS);
        long delayMillis = (System.nanoTime() - sent) / 1_000_000;
        byte[] expected = new byte[MIB];
        java.util.Arrays.fill(expected, (byte) 0x5a);
        assertArrayEquals(expected, data);
        assertTrue(closedByServer(slow), "the slow reader was cut off");
        await(() -> s.memoryBudget().used() == 0 && pool.available() == 4, "memory back");
        System.out.printf(
                "a client sending 64 READs of 1 MiB and never reading: buffers all held %d ms after its"
                        + " first call; another client's READ of 1 MiB answered in %d ms (write timeout %d ms,"
                        + " watchdog every %d ms); %d write timeout(s); server memory peak %d bytes, now %d;"
                        + " pooled buffers back: %d of 4%n",
                (stalled - t0) / 1_000_000,
                delayMillis,
                writeTimeout.toMillis(),
                500,
                s.statistics().writeTimeouts(),
                s.memoryBudget().peak(),
                s.memoryBudget().used(),
                pool.available());
        assertEquals(1, s.statistics().writeTimeouts());
        assertTrue(delayMillis < writeTimeout.toMillis() + 500 + 3000, "delayed " + delayMillis + " ms");
        assertTrue(nullAnswered(good), "the good client's connection is untouched");
    }

    @Test
    void connectionsBeyondTheCapsAreResetAndTheOthersGoOn() throws Exception {
        TcpRpcServer s = start(TcpRpcServer.builder(dispatcher(null)).maxConnections(4, 2));
        List<Socket> in = new ArrayList<>();
        in.add(raw(s, "127.0.0.1"));
        in.add(raw(s, "127.0.0.1"));
        Socket third = raw(s, "127.0.0.1");
        assertTrue(closedByServer(third), "a third connection from one address is reset");
        in.add(raw(s, "127.0.0.2"));
        in.add(raw(s, "127.0.0.2"));
        await(() -> s.connectionCount() == 4, "four connections served");
        Socket fifth = raw(s, "127.0.0.3");
        assertTrue(closedByServer(fifth), "a fifth connection is reset: the server is full");
        assertEquals(1, s.admission().refused(Refusal.ADDRESS_FULL));
        assertEquals(1, s.admission().refused(Refusal.SERVER_FULL));
        for (int i = 0; i < in.size(); i++) {
            call(in.get(i), 0x6000 + i, NULL, XdrEncodable.VOID);
            AcceptedReply reply = (AcceptedReply)
                    RpcMessageCodec.decode(new XdrDecoder(readRecord(in.get(i).getInputStream())));
            assertEquals(0x6000 + i, reply.xid(), "the admitted connections are served");
        }
        in.get(0).close();
        InetAddress first = InetAddress.getByName("127.0.0.1");
        await(() -> s.admission().openFrom(first) == 1, "a place given back");
        Socket again = raw(s, "127.0.0.1");
        call(again, 0x6100, NULL, XdrEncodable.VOID);
        assertEquals(
                0x6100,
                RpcMessageCodec.decode(new XdrDecoder(readRecord(again.getInputStream())))
                        .xid());
    }

    @Test
    void anIdleConnectionIsClosedButOneWithACallInProgressIsNot() throws Exception {
        TcpRpcServer s = start(TcpRpcServer.builder(dispatcher(null)).idleTimeout(Duration.ofMillis(300)));
        Socket idle = raw(s, "127.0.0.1");
        call(idle, 1, NULL, XdrEncodable.VOID);
        readRecord(idle.getInputStream());
        Socket busy = raw(s, "127.0.0.1");
        call(busy, 2, BLOCK, XdrEncodable.VOID);
        assertTrue(blocked.await(60, TimeUnit.SECONDS));
        long t0 = System.nanoTime();
        assertTrue(closedByServer(idle));
        long closedAfter = (System.nanoTime() - t0) / 1_000_000;
        await(() -> s.statistics().idleTimeouts() == 1, "counted");
        busy.setSoTimeout(1000); // three idle timeouts: the blocked call keeps it open
        assertFalse(closedByServer(busy), "a connection whose call runs is not idle");
        gate.countDown();
        busy.setSoTimeout((int) LONG.toMillis());
        assertEquals(
                2,
                RpcMessageCodec.decode(new XdrDecoder(readRecord(busy.getInputStream())))
                        .xid());
        assertTrue(closedByServer(busy), "idle once its call is answered");
        System.out.println("idle connection closed " + closedAfter + " ms after its last reply (idle timeout 300 ms); "
                + s.statistics());
        assertEquals(2, s.statistics().idleTimeouts());
    }

    @Test
    void aTrickledOrHalfOpenRecordIsCutOffAtTheReadTimeout() throws Exception {
        Duration readTimeout = Duration.ofMillis(500);
        TcpRpcServer s = start(TcpRpcServer.builder(dispatcher(null)).readTimeout(readTimeout));
        Socket trickler = raw(s, "127.0.0.1");
        Socket halfOpen = raw(s, "127.0.0.1");
        OutputStream t = trickler.getOutputStream();
        t.write(new byte[] {(byte) 0x80, 0, 0, 100}); // a record of 100 bytes...
        halfOpen.getOutputStream().write(new byte[] {(byte) 0x80, 0, 0, 100}); // ...and one that never comes
        long t0 = System.nanoTime();
        CompletableFuture<Long> trickledUntil = CompletableFuture.supplyAsync(() -> {
            try {
                for (int i = 0; i < 100; i++) { // a byte every 50 ms: 5 s for the record
                    t.write(0);
                    t.flush();
                    Thread.sleep(50);
                }
                return -1L;
            } catch (IOException | InterruptedException cutOff) {
                return (System.nanoTime() - t0) / 1_000_000;
            }
        });
        assertTrue(closedByServer(trickler));
        assertTrue(closedByServer(halfOpen));
        long closedAfter = (System.nanoTime() - t0) / 1_000_000;
        await(() -> s.statistics().readTimeouts() == 2, "both counted");
        System.out.println("trickled and half-open records cut off after " + closedAfter + " ms (read timeout "
                + readTimeout.toMillis() + " ms); the trickler's writes failed after "
                + trickledUntil.get(60, TimeUnit.SECONDS) + " ms");
        assertTrue(closedAfter < 5000, "cut off before the record could have arrived");
        assertEquals(0, s.memoryBudget().used());
    }

    @Test
    void aCallBeyondItsConnectionsMemoryWaitsThenIsDroppedAndTheConnectionGoesOn() throws Exception {
        int maxRecord = 64 << 10;
        int replyBuffer = 4096;
        TcpRpcServer s = start(TcpRpcServer.builder(dispatcher(null))
                .maxRecordSize(maxRecord)
                .replyBufferSize(replyBuffer)
                .memory(maxRecord + replyBuffer, 4L * (maxRecord + replyBuffer))
                .memoryWait(Duration.ofMillis(200)));
        Socket c = raw(s, "127.0.0.1");
        call(c, 1, BLOCK, XdrEncodable.VOID); // holds its record and reply buffer: a little of the budget
        assertTrue(blocked.await(60, TimeUnit.SECONDS));
        byte[] big = new byte[maxRecord - 200];
        call(c, 2, NULL, out -> out.putOpaque(MemorySegment.ofArray(big), maxRecord)); // does not fit beside it
        await(() -> s.statistics().droppedCalls() == 1, "the second call dropped");
        TcpRpcClient other = client(s);
        assertTrue(nullAnswered(other), "another connection is served meanwhile");
        gate.countDown();
        assertEquals(
                1,
                RpcMessageCodec.decode(new XdrDecoder(readRecord(c.getInputStream())))
                        .xid());
        call(c, 3, NULL, XdrEncodable.VOID);
        assertEquals(
                3,
                RpcMessageCodec.decode(new XdrDecoder(readRecord(c.getInputStream())))
                        .xid(),
                "the dropped call got no reply, the connection goes on");
        await(() -> s.memoryBudget().used() == 0, "memory back");
        System.out.println("call beyond its connection's memory dropped after the 200 ms wait; " + s.statistics() + "; "
                + s.memoryBudget());
    }

    @Test
    void budgetsThatCannotHoldTheLargestRecordAreRefused() {
        TcpRpcServer.Builder b =
                TcpRpcServer.builder(dispatcher(null)).maxRecordSize(MIB).replyBufferSize(4096);
        assertThrows(
                IllegalArgumentException.class, () -> b.memory(MIB, 64L * MIB).start());
        assertThrows(
                IllegalArgumentException.class, () -> b.memory(2L * MIB, MIB).start());
        assertThrows(IllegalArgumentException.class, () -> b.writeTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> b.maxConnections(0, 1));
    }
}
