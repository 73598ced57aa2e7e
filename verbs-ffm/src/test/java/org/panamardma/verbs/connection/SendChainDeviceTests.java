package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.panamardma.verbs.connection.ConnectionDeviceTests.OPTIONS;
import static org.panamardma.verbs.connection.ConnectionDeviceTests.await;
import static org.panamardma.verbs.connection.ConnectionDeviceTests.failure;
import static org.panamardma.verbs.connection.ConnectionDeviceTests.pattern;
import static org.panamardma.verbs.connection.ConnectionDeviceTests.region;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.WorkCompletionException;
import org.panamardma.verbs.connection.ConnectionDeviceTests.Pair;

/**
 * {@link RdmaConnection#writesThenSend} on a device, as an RPC-over-RDMA server replies: WRITEs into the peer's
 * memory and the SEND of the reply in one post ({@code QueuePair.postChain}), the WRITEs unsignaled. The peer must
 * find every WRITE's bytes in place when the SEND's message arrives (RC ordering, which one post must keep), for
 * chains that fit one post and chains split into parts; and a WRITE to a bad rkey in the middle must end the connection
 * (on RoCE failing the reply's future with the device's error), the WRITEs before it landed and none after it.
 */
abstract class SendChainDeviceTests {
    /**
     * Whether a WRITE to a bad key always fails at the requester with its own error completion: on InfiniBand/RoCE
     * the responder NAKs it (a remote access error) and the requester completes it in error. iWARP's RDMAP Writes
     * are not acknowledged: the WRITE may complete once sent, and the responder's TERMINATE (RFC 5040 section 7)
     * ends the stream (siw then completes the request in progress in error: seen on trixie's siw, 2026-11-26).
     */
    abstract boolean writeErrorsCompleteAtTheRequester();

    /** A small send queue: 12 WRITEs then take two posts (8 and 4 + the SEND). */
    private static final ConnectionOptions SMALL_QUEUE = OPTIONS.withQueueDepths(8, 16);

    @Test
    void thePeerFindsEveryWritesBytesInPlaceWhenTheSendsMessageArrives(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device, SMALL_QUEUE)) {
            int piece = 3000;
            int maxWrites = 12;
            MemoryRegion target = region(p.client, new byte[piece * maxWrites]);
            MemoryRegion source = region(p.serverSide, new byte[piece * maxWrites]);
            MemoryRegion message = region(p.serverSide, new byte[64]);
            for (int round = 0; round < 24; round++) {
                int writes = 1 + round % maxWrites; // 1..12: one post up to 7 WRITEs, two from 8
                byte[] data = pattern(piece * writes, round);
                MemorySegment.copy(data, 0, source.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
                target.segment().fill((byte) 0);
                message.segment().set(ValueLayout.JAVA_INT, 0, round);
                List<RdmaConnection.ChainedWrite> chain = new ArrayList<>();
                for (int w = 0; w < writes; w++) {
                    chain.add(new RdmaConnection.ChainedWrite(
                            source, (long) w * piece, piece, target.address() + (long) w * piece, target.rkey()));
                }
                // what the client's memory holds the moment the message is handed over (on its poller thread)
                AtomicReference<byte[]> atArrival = new AtomicReference<>();
                CompletableFuture<Received> arrival = p.client
                        .receive()
                        .whenComplete((r, t) -> atArrival.set(ConnectionDeviceTests.bytes(target, 0, data.length)));
                await(p.serverSide.writesThenSend(chain, message, 0, 4));
                Received r = await(arrival);
                assertEquals(round, MemorySegment.ofArray(r.data()).get(ValueLayout.JAVA_INT_UNALIGNED, 0));
                assertArrayEquals(
                        data,
                        atArrival.get(),
                        "round " + round + " (" + writes
                                + " WRITEs): every WRITE's bytes in place when the SEND's message arrived");
            }
            assertTrue(!p.serverSide.isFailed() && !p.client.isFailed());
        }
    }

    @Test
    void aWriteToABadKeyInTheMiddleFailsTheReplyEndsTheConnectionAndNothingAfterItLands(RdmaTestDevice device)
            throws Exception {
        try (Pair p = new Pair(device)) {
            int piece = 1024;
            MemoryRegion target = region(p.client, new byte[piece * 5]);
            byte[] data = pattern(piece * 5, 77);
            MemoryRegion source = region(p.serverSide, data);
            MemoryRegion message = region(p.serverSide, new byte[16]);
            List<RdmaConnection.ChainedWrite> chain = new ArrayList<>();
            for (int w = 0; w < 5; w++) {
                int rkey = w == 2 ? target.rkey() ^ 0x5a5a5a00 : target.rkey(); // the third to a forged key
                chain.add(new RdmaConnection.ChainedWrite(
                        source, (long) w * piece, piece, target.address() + (long) w * piece, rkey));
            }
            CompletableFuture<Void> reply = p.serverSide.writesThenSend(chain, message, 0, 16);
            Throwable outcome = null;
            try {
                await(reply);
            } catch (java.util.concurrent.ExecutionException e) {
                outcome = e.getCause();
            }
            System.out.println(device.name() + ": a reply with a WRITE to a forged key: " + outcome);
            if (outcome instanceof WorkCompletionException wce) {
                // the device's own error first, not a flush: the chain's future names what went wrong
                assertTrue(
                        wce.status() != WcStatus.SUCCESS && wce.status() != WcStatus.WR_FLUSH_ERR,
                        wce.status().toString());
            } else {
                // iWARP only: the WRITE completed once sent, and the SEND was sent or flushed by the TERMINATE
                assertTrue(
                        !writeErrorsCompleteAtTheRequester(),
                        "on " + device.name() + " the bad WRITE's own " + "error completion fails the reply, not "
                                + outcome);
                assertTrue(outcome == null || outcome instanceof ConnectionClosedException, String.valueOf(outcome));
            }
            // the connection ends (at once where the requester sees the error; on iWARP with the peer's TERMINATE)
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
            while (!p.serverSide.isFailed() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(p.serverSide.isFailed(), "the connection ended within 60 s");
            assertInstanceOf(
                    ConnectionClosedException.class,
                    failure(p.serverSide.send(message, 0, 16)),
                    "later requests are refused");
            // RC executes in order: the two WRITEs before the bad one landed; the responder's QP went to the error
            // state at the bad key (IBA: a remote access error), so nothing after it did
            byte[] landed = ConnectionDeviceTests.bytes(target, 0, piece * 5);
            assertArrayEquals(Arrays.copyOf(data, 2 * piece), Arrays.copyOf(landed, 2 * piece));
            assertArrayEquals(
                    new byte[3 * piece],
                    Arrays.copyOfRange(landed, 2 * piece, 5 * piece),
                    "nothing of the bad WRITE nor of those after it");
        }
    }
}
