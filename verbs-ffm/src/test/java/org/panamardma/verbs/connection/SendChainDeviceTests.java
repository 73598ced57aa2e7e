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

    /**
     * A reply's memory may be reused the moment its SEND completed, as a server does with a reply's pooled buffer:
     * the peer must still find the bytes that were there when the chain was posted. siw transmits an unsignaled
     * request's payload of a page or more from its memory without a copy, and TCP keeps those pages to send (and
     * resend) after the later signaled request completed (siw_qp_tx.c, siw_qp_prepare_tx: zero copy only for a
     * request not signaled), so memory overwritten then reached the peer in place of the reply's data: one wrong 4
     * KiB page in the 18th of 19 pages of an NFS READ through the kernel client (fio verify, 2026-11-27). Each round
     * here writes 1 MiB in 16 WRITEs and overwrites the source in the SEND's completion, on the poller thread, with
     * the server's packets held 10 ms before they leave and 1 % lost ({@link ImpairedLink}): what leaves after the
     * completion shows what the memory held then.
     */
    @Test
    void aReplysMemoryMayBeReusedAsSoonAsItsSendCompleted(RdmaTestDevice device) throws Exception {
        // the server's packets held 10 ms before they leave, and 1 % lost: TCP (siw) sends them, and sends again, from
        // the memory it kept, well after the completion
        String serverNetdev = device.peer().orElseThrow().netdev();
        try (Pair p = new Pair(device, OPTIONS.withReceiveBufferSize(8192).withSendSignalInterval(4));
                ImpairedLink _ = ImpairedLink.on(serverNetdev, 10, 1)) {
            int piece = 64 << 10;
            int writes = 16;
            MemoryRegion target = region(p.client, new byte[piece * writes]);
            MemoryRegion source = region(p.serverSide, new byte[piece * writes]);
            MemoryRegion message = region(p.serverSide, new byte[8192]);
            for (int round = 0; round < 32; round++) {
                byte[] data = pattern(piece * writes, 1000 + round);
                MemorySegment.copy(data, 0, source.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
                // the SEND itself of a page and more: its memory is reused at its completion too
                MemorySegment.copy(data, 0, message.segment(), ValueLayout.JAVA_BYTE, 0, 8192);
                target.segment().fill((byte) 0);
                List<RdmaConnection.ChainedWrite> chain = new ArrayList<>();
                for (int w = 0; w < writes; w++) {
                    chain.add(new RdmaConnection.ChainedWrite(
                            source, (long) w * piece, piece, target.address() + (long) w * piece, target.rkey()));
                }
                CompletableFuture<Received> arrival = p.client.receive();
                await(p.serverSide.writesThenSend(chain, message, 0, 8192).whenComplete((v, t) -> {
                    source.segment().fill((byte) 0x5A);
                    message.segment().fill((byte) 0x5A);
                }));
                Received r = await(arrival);
                assertArrayEquals(
                        Arrays.copyOf(data, 8192), r.data(), "round " + round + ": the SEND's bytes as posted");
                byte[] landed = ConnectionDeviceTests.bytes(target, 0, data.length);
                int wrong = 0;
                for (int i = 0; i < data.length; i += 4096) {
                    if (!Arrays.equals(data, i, i + 4096, landed, i, i + 4096)) {
                        wrong++;
                    }
                }
                assertEquals(0, wrong, "round " + round + ": pages of the 1 MiB written that are not as posted");
            }
            // plain SENDs of two pages, three of every four unsignaled (sendSignalInterval 4): each one's memory is
            // overwritten when its future completes, with the signaled one after it
            MemoryRegion sends = region(p.serverSide, new byte[4 * 8192]);
            for (int round = 0; round < 32; round++) {
                List<byte[]> posted = new ArrayList<>();
                List<CompletableFuture<Received>> arrivals = new ArrayList<>();
                List<CompletableFuture<Void>> sent = new ArrayList<>();
                for (int k = 0; k < 4; k++) {
                    byte[] bytes = pattern(8192, 5000 + 4L * round + k);
                    posted.add(bytes);
                    long at = 8192L * k;
                    MemorySegment.copy(bytes, 0, sends.segment(), ValueLayout.JAVA_BYTE, at, 8192);
                    arrivals.add(p.client.receive());
                    sent.add(p.serverSide
                            .send(sends, at, 8192)
                            .whenComplete(
                                    (v, t) -> sends.segment().asSlice(at, 8192).fill((byte) 0x5A)));
                }
                for (int k = 0; k < 4; k++) {
                    await(sent.get(k));
                    assertArrayEquals(posted.get(k), await(arrivals.get(k)).data(), "round " + round + ", SEND " + k);
                }
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
