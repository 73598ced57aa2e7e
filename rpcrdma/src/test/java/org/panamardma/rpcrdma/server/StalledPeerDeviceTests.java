package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.panamardma.rpcrdma.server.RpcRdmaServerDeviceTests.assertNullAnswered;
import static org.panamardma.rpcrdma.server.RpcRdmaServerDeviceTests.concat;
import static org.panamardma.rpcrdma.server.RpcRdmaServerDeviceTests.echo;
import static org.panamardma.rpcrdma.server.RpcRdmaServerDeviceTests.header;
import static org.panamardma.rpcrdma.server.RpcRdmaServerDeviceTests.opaque;
import static org.panamardma.rpcrdma.server.RpcRdmaServerDeviceTests.peerAddress;
import static org.panamardma.rpcrdma.server.RpcRdmaServerDeviceTests.rpcCall;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.rpcrdma.memory.BufferPool;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testing.LogCapture;

/**
 * A client that stops answering at the transport level in the middle of a transfer, without closing (its host hangs,
 * its cable is pulled: {@link PacketDrop} drops in the guest kernel every packet sent to its queue pair), on a real
 * device, subclassed per transport. The server's wait for the chunk's RDMA Reads, or for the reply's RDMA Writes and
 * Send, must end at the deadline it chose ({@link TransferDeadline}); then it closes that connection, counts it,
 * gives back what the call held and logs one WARN naming the connection, while a second client's calls are served
 * during and after. No verdict depends on how fast the emulated guest runs: the deadline is a lower bound the server
 * cannot beat, and the upper bound is a minute.
 */
abstract class StalledPeerDeviceTests {
    private static final AtomicInteger PORTS = new AtomicInteger(20_000 + new Random().nextInt(10_000));
    private static final AtomicInteger XIDS = new AtomicInteger(0x5000_0000);
    private static final Duration TRANSFER_TIMEOUT = Duration.ofSeconds(1);
    /** How long a Send may take (and a connection's set-up): the reply's Writes get it on top of their deadline. */
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(4);
    /** Far beyond any deadline here: the stalled connection must be gone long before. */
    private static final long GONE_WITHIN_NANOS = Duration.ofSeconds(60).toNanos();

    @RegisterExtension
    final LogCapture log = LogCapture.of(ServerConnection.class);

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private RpcRdmaServer server(RdmaTestDevice device) throws Exception {
        RpcRdmaServer s = RpcRdmaServer.builder(EchoProgram.dispatcher())
                .bind(new InetSocketAddress(peerAddress(device), PORTS.getAndIncrement()))
                .credits(4)
                .timeout(SEND_TIMEOUT)
                .transferTimeout(TRANSFER_TIMEOUT)
                .start();
        open.add(s);
        return s;
    }

    private RawPeer peer(RpcRdmaServer s) throws Exception {
        RawPeer p = RawPeer.connect(s.address(), Duration.ofSeconds(90));
        open.add(p);
        return p;
    }

    /** The server's side of {@code client}'s connection: the one whose peer port is the client's local port. */
    private static ServerConnection serverSideOf(RpcRdmaServer s, RawPeer client) {
        int port = client.rdma.localAddress().orElseThrow().getPort();
        return s.openConnections().stream()
                .filter(c -> c.rdma().peerAddress().orElseThrow().getPort() == port)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no server connection from port " + port));
    }

    /** A Long Call (RFC 8166 section 3.5.3): a NULL call of {@code bytes}, all in a position-zero Read chunk. */
    private static byte[] longCall(RawPeer p, int xid, int bytes) throws Exception {
        RdmaSegment whole = p.register(rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.NULL, new byte[bytes - 40]));
        return header(
                new RdmaNoMsg(xid, 4, new ChunkLists(List.of(new ReadSegment(0, whole)), List.of(), Optional.empty())));
    }

    /** An inline ECHO of {@code payload} whose result goes to a Write chunk: the reply's RDMA Writes. */
    private static byte[] echoToWriteChunk(RawPeer p, int xid, byte[] payload) throws Exception {
        RdmaSegment target = p.registerEmpty(payload.length);
        return concat(
                header(new RdmaMsg(
                        xid, 4, new ChunkLists(List.of(), List.of(WriteChunk.of(target)), Optional.empty()))),
                rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.ECHO, opaque(payload)));
    }

    @Test
    void aClientThatStopsAnsweringDuringTheReadOfItsCallIsCutOffAtTheDeadlineAndTheOthersGoOn(RdmaTestDevice device)
            throws Exception {
        int bytes = 256 << 10;
        long deadline = new TransferDeadline(TRANSFER_TIMEOUT).millisFor(bytes);
        stallAndCheck(device, deadline, stalled -> longCall(stalled, XIDS.incrementAndGet(), bytes));
    }

    /**
     * The reply's RDMA Writes and Send meet a stalled client. A test of the RoCE subclass only: siw completes RDMA
     * Writes and Sends once handed to TCP, not when the peer has them, so there the server's wait ends as for a
     * healthy client and nothing stalls it (measured: answered, no timeout, 2026-11-26); and a device test may not
     * be skipped in the VM.
     */
    final void aClientStallingDuringTheWritesOfItsReply(RdmaTestDevice device) throws Exception {
        byte[] payload = EchoProgram.pattern(3000, 7); // inline call, the result placed by RDMA Write
        long deadline = SEND_TIMEOUT.toMillis() + new TransferDeadline(TRANSFER_TIMEOUT).millisFor(payload.length);
        stallAndCheck(device, deadline, stalled -> echoToWriteChunk(stalled, XIDS.incrementAndGet(), payload));
    }

    interface CallBuilder {
        byte[] build(RawPeer stalled) throws Exception;
    }

    private void stallAndCheck(RdmaTestDevice device, long deadlineMillis, CallBuilder call) throws Exception {
        RpcRdmaServer s = server(device);
        RawPeer good = peer(s);
        RawPeer stalled = peer(s);
        assertNullAnswered(good);
        assertNullAnswered(stalled);
        ServerConnection victim = serverSideOf(s, stalled);
        String name = victim.rdma().name();
        BufferPool pool = victim.chunkPool();
        byte[] message = call.build(stalled);
        long t0;
        long gone;
        int servedMeanwhile = 0;
        String dropped;
        try (PacketDrop drop = PacketDrop.toClient(device, stalled)) {
            t0 = System.nanoTime();
            // the client's Send gets through, but never its acknowledgement: rxe retries it, then fails it; no wait
            Thread.ofVirtual().start(() -> {
                try {
                    stalled.send(message);
                } catch (Exception expected) {
                    // the stalled client's own Send failing is not what this test is about
                }
            });
            // the healthy client is served while the stalled call holds its memory and then its connection closes
            while (s.connectionCount() > 1 && System.nanoTime() - t0 < GONE_WITHIN_NANOS) {
                byte[] payload = EchoProgram.pattern(64 << 10, servedMeanwhile);
                assertArrayEquals(payload, echo(good, RpcRdmaServerDeviceTests.Path.READ_CHUNK_WRITE_LIST, payload));
                good.releaseRegions();
                servedMeanwhile++;
            }
            gone = System.nanoTime() - t0;
            dropped = drop.statistics();
        }
        long goneMillis = gone / 1_000_000;
        System.out.printf(
                "%s: stalled connection %s gone after %d ms (deadline %d ms); %d echoes of 64 KiB served meanwhile;"
                        + " %s; pool leased %d, pinned %d; %s, %s%n%s%n",
                device,
                name,
                goneMillis,
                deadlineMillis,
                servedMeanwhile,
                s.statistics(),
                pool.leased(),
                pool.pinnedBytes(),
                s.heapBudget(),
                s.pinnedBudget(),
                dropped);
        assertEquals(1, s.connectionCount(), "the stalled connection was not closed within a minute");
        assertEquals(1, s.statistics().transferTimeouts(), "the stall was not counted as a transfer timeout");
        assertTrue(goneMillis >= deadlineMillis, "closed after " + goneMillis + " ms, before the deadline");
        assertTrue(servedMeanwhile > 0, "the healthy client was not served while the other stalled");
        assertEquals(0, pool.leased(), "the stalled call's chunk buffer was not given back");
        assertEquals(0, pool.pinnedBytes(), "the closed connection's chunk pool still holds registered memory");
        assertEquals(0, s.pinnedBudget().used());
        assertEquals(0, s.heapBudget().used());
        List<LogRecord> warnings = log.records().stream()
                .filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                .toList();
        assertEquals(
                1,
                warnings.size(),
                () -> "one WARN, not "
                        + warnings.stream().map(LogRecord::getMessage).toList());
        assertTrue(
                warnings.getFirst().getMessage().contains(name),
                warnings.getFirst().getMessage());
        // and after: the healthy client goes on
        byte[] after = EchoProgram.pattern(1 << 20, 99);
        assertArrayEquals(after, echo(good, RpcRdmaServerDeviceTests.Path.READ_CHUNK_WRITE_LIST, after));
        assertNullAnswered(good);
    }
}
