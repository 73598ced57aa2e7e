package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

class ChunkPlannerTest {
    static final RpcCall CALL = RpcCall.of(0x1234, 100003, 3, 7, OpaqueAuth.NONE, OpaqueAuth.NONE);
    /** RPC call header with AUTH_NONE: 10 words. */
    static final int CALL_HEADER = 40;
    /** Our call's transport header with no chunks: 4 fixed words and three empty lists. */
    static final int EMPTY_TRANSPORT_HEADER = 28;

    static XdrEncodable writeArgs(MemorySegment data) {
        return out -> {
            out.putInt(8).putInt(1).putInt(2); // a file handle opaque<64> of 8 bytes
            out.putHyper(0).putInt((int) data.byteSize()).putInt(2);
            out.putEligibleOpaque(data, Integer.MAX_VALUE);
            out.putInt(0xabcdef); // a trailing item after the data
        };
    }

    static MemorySegment bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i % 251);
        }
        return MemorySegment.ofArray(b);
    }

    @Test
    void aCallThatFitsGoesInlineEvenWithEligibleData() {
        ChunkPlanner p = new ChunkPlanner(1024, 1024, 0, 0, false);
        MemorySegment data = bytes(100);
        CallPlan plan = p.plan(CALL, writeArgs(data), ReplyExpectation.SMALL);
        assertEquals(CallPlan.Kind.INLINE, plan.kind());
        assertEquals(CALL_HEADER + 12 + 16 + 4 + 100 + 4, plan.message().byteSize());
        assertEquals(List.of(), plan.readItems());
        assertEquals(0, plan.replyChunkLength());
    }

    @Test
    void theInlineLimitCountsTheTransportHeader() {
        // exactly at the threshold: inline; one word more: not
        int room = 1024 - EMPTY_TRANSPORT_HEADER - CALL_HEADER;
        ChunkPlanner p = new ChunkPlanner(1024, 1024, 0, 0, false);
        assertEquals(
                CallPlan.Kind.INLINE,
                p.plan(CALL, out -> out.putFixedOpaque(new byte[room]), ReplyExpectation.SMALL)
                        .kind());
        assertEquals(
                CallPlan.Kind.POSITION_ZERO,
                p.plan(CALL, out -> out.putFixedOpaque(new byte[room + 4]), ReplyExpectation.SMALL)
                        .kind());
    }

    @Test
    void largeEligibleDataGoesInAReadChunkAtItsXdrPosition() {
        ChunkPlanner p = new ChunkPlanner(1024, 1024, 1024, 1024, false);
        MemorySegment data = bytes(5001); // odd length: roundup of 3 neither in the chunk nor inline
        CallPlan plan = p.plan(CALL, writeArgs(data), ReplyExpectation.SMALL);
        assertEquals(CallPlan.Kind.READ_CHUNKS, plan.kind());
        assertEquals(1, plan.readItems().size());
        CallPlan.ReadItem item = plan.readItems().getFirst();
        assertEquals(CALL_HEADER + 12 + 16 + 4, item.position());
        assertSame(data.heapBase().orElseThrow(), item.data().heapBase().orElseThrow(), "the caller's memory, no copy");
        assertEquals(5001, item.data().byteSize());
        // the reduced stream: header, fh, offset, count, stable, length word, then the trailing item at once
        XdrDecoder in = new XdrDecoder(plan.message());
        RpcMessageCodec.decode(in);
        in.skip(12 + 12, "fh offset count");
        in.getInt();
        assertEquals(5001, in.getInt(), "the length word stays inline");
        assertEquals(0xabcdef, in.getInt());
        assertTrue(in.atEnd());
    }

    @Test
    void smallEligibleItemsStayInlineAndAnOversizedCallBecomesAPositionZeroChunk() {
        ChunkPlanner p = new ChunkPlanner(1024, 1024, 4096, 0, false);
        MemorySegment data = bytes(2000); // below readChunkMinimum: stays inline, too long for the threshold
        CallPlan plan = p.plan(CALL, writeArgs(data), ReplyExpectation.SMALL);
        assertEquals(CallPlan.Kind.POSITION_ZERO, plan.kind());
        assertEquals(CALL_HEADER + 12 + 16 + 4 + 2000 + 4, plan.message().byteSize(), "the whole call");
        assertEquals(List.of(), plan.readItems());
    }

    @Test
    void readChunksThatStillLeaveTooMuchInlineFallBackToPositionZero() {
        ChunkPlanner p = new ChunkPlanner(1024, 1024, 1024, 0, false);
        XdrEncodable args = out -> {
            out.putFixedOpaque(new byte[1500]); // not eligible
            out.putEligibleOpaque(bytes(4000), Integer.MAX_VALUE);
        };
        assertEquals(
                CallPlan.Kind.POSITION_ZERO,
                p.plan(CALL, args, ReplyExpectation.SMALL).kind());
    }

    @Test
    void writeChunkForEachLargeEnoughTargetAndNoReplyChunkWhenTheRestFits() {
        ChunkPlanner p = new ChunkPlanner(4096, 4096, 1024, 1024, false);
        MemorySegment big = MemorySegment.ofArray(new byte[1 << 20]);
        MemorySegment small = MemorySegment.ofArray(new byte[100]);
        CallPlan plan =
                p.plan(CALL, XdrEncodable.VOID, new ReplyExpectation(200 + (1 << 20) + 104, List.of(big, small)));
        assertEquals(List.of(true, false), plan.writeTargets());
        assertEquals(1, plan.writeChunkCount());
        assertEquals(0, plan.replyChunkLength(), "200 + 104 bytes of results fit a 4 KiB receive");
    }

    @Test
    void replyChunkWhenTheReplyMayExceedTheReceiveThreshold() {
        ChunkPlanner p = new ChunkPlanner(4096, 4096, 1024, 1024, false);
        assertEquals(
                0, p.plan(CALL, XdrEncodable.VOID, ReplyExpectation.upTo(3000)).replyChunkLength());
        long length = p.plan(CALL, XdrEncodable.VOID, ReplyExpectation.upTo(32768 + 4))
                .replyChunkLength();
        assertEquals(ChunkPlanner.MAX_REPLY_HEADER + 32768 + 4, length);
        assertEquals(
                0,
                p.plan(CALL, XdrEncodable.VOID, ReplyExpectation.SMALL).replyChunkLength(),
                "unknown size: assumed small");
    }

    @Test
    void alwaysReplyChunkForcesOneEvenForTinyReplies() {
        ChunkPlanner p = new ChunkPlanner(1024, 1024, 1024, 0, true);
        assertEquals(
                ChunkPlanner.MAX_REPLY_HEADER + 100,
                p.plan(CALL, XdrEncodable.VOID, ReplyExpectation.upTo(100)).replyChunkLength());
        assertEquals(
                1024, p.plan(CALL, XdrEncodable.VOID, ReplyExpectation.SMALL).replyChunkLength());
        MemorySegment target = MemorySegment.ofArray(new byte[16]);
        CallPlan read = p.plan(CALL, XdrEncodable.VOID, ReplyExpectation.placedInto(target, 120 + 16));
        assertEquals(List.of(false), read.writeTargets(), "a Reply chunk and no Write list, as Linux does");
        assertEquals(ChunkPlanner.MAX_REPLY_HEADER + 136, read.replyChunkLength(), "the data travels in it");
        CallPlan placed = new ChunkPlanner(1024, 1024, 1024, 0, false)
                .plan(CALL, XdrEncodable.VOID, ReplyExpectation.placedInto(target, 120 + 16));
        assertEquals(List.of(true), placed.writeTargets(), "writeChunkMinimum 0: even 16 bytes are placed");
        assertEquals(0, placed.replyChunkLength());
    }

    @Test
    void aReplyTooLargeEvenWithoutItsPlacedItemTakesTheReplyChunkInsteadOfTheWriteList() {
        ChunkPlanner p = new ChunkPlanner(4096, 4096, 1024, 1024, false);
        MemorySegment target = MemorySegment.ofArray(new byte[8192]);
        CallPlan plan = p.plan(CALL, XdrEncodable.VOID, ReplyExpectation.placedInto(target, 8192 + 10_000));
        assertEquals(List.of(false), plan.writeTargets());
        assertEquals(ChunkPlanner.MAX_REPLY_HEADER + 18_192, plan.replyChunkLength());
    }

    @Test
    void callsLargerThanTheFirstBufferAreEncodedWhole() {
        ChunkPlanner p = new ChunkPlanner(1024, 1024, 1024, 0, false);
        CallPlan plan = p.plan(CALL, out -> out.putFixedOpaque(new byte[100_000]), ReplyExpectation.SMALL);
        assertEquals(CallPlan.Kind.POSITION_ZERO, plan.kind());
        assertEquals(CALL_HEADER + 100_000, plan.message().byteSize());
    }
}
