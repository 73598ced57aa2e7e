package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RejectStat;
import org.panamardma.oncrpc.RejectedReply;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaMsgp;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RdmaProcedure;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

class ReplyDecodingTest {
    static final int XID = 0x0badcafe;

    static MemorySegment rpcReply(RpcMessage header, int... resultWords) {
        MemorySegment buffer = MemorySegment.ofArray(new byte[1024]);
        XdrEncoder out = new XdrEncoder(buffer);
        RpcMessageCodec.encode(header, out);
        for (int w : resultWords) {
            out.putInt(w);
        }
        return out.written(0);
    }

    static CallPlan plan(List<Boolean> writeTargets, long replyChunk) {
        return new CallPlan(
                CallPlan.Kind.INLINE, MemorySegment.ofArray(new byte[0]), List.of(), writeTargets, replyChunk);
    }

    static ChunkLists writeList(int... lengths) {
        return new ChunkLists(
                List.of(),
                Arrays.stream(lengths)
                        .mapToObj(l -> WriteChunk.of(new RdmaSegment(7, l, 0x1000)))
                        .toList(),
                Optional.empty());
    }

    @Test
    void rdmaMsgWithAWriteListReportsWhatWasPlacedAndTheReducedResults() throws Exception {
        byte[] target = new byte[100];
        byte[] bounce = new byte[100];
        Arrays.fill(bounce, 0, 37, (byte) 9); // what the server wrote into the native stand-in of a heap target
        MemorySegment message = rpcReply(AcceptedReply.success(XID, OpaqueAuth.NONE), 0, 37);
        RpcRdmaReply reply = ReplyDecoding.decode(
                "t",
                new RdmaMsg(XID, 32, writeList(37)),
                message,
                plan(List.of(true), 0),
                ReplyExpectation.placedInto(MemorySegment.ofArray(target), 200),
                null,
                Arrays.asList(MemorySegment.ofArray(bounce)));
        assertTrue(reply.isSuccess());
        assertEquals(AcceptStat.SUCCESS, reply.acceptStat());
        assertEquals(RdmaProcedure.RDMA_MSG, reply.replyProcedure());
        assertTrue(reply.usedWriteList());
        assertEquals(37, reply.placements().getFirst().length());
        assertEquals(37, reply.placed(0).byteSize());
        byte[] expected = new byte[100];
        Arrays.fill(expected, 0, 37, (byte) 9);
        assertArrayEquals(expected, target, "copied from the bounce buffer, and only what was written");
        XdrDecoder results = reply.resultsDecoder();
        assertEquals(0, results.getInt());
        assertEquals(37, results.getInt());
        assertTrue(results.atEnd());
    }

    @Test
    void rdmaNoMsgTakesTheReplyFromTheReplyChunkByItsReturnedLength() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment chunk = arena.allocate(1024);
            MemorySegment message = rpcReply(AcceptedReply.success(XID, OpaqueAuth.NONE), 0, 1, 2, 3);
            MemorySegment.copy(message, 0, chunk, 0, message.byteSize());
            chunk.asSlice(message.byteSize()).fill((byte) 0x55); // garbage past the returned length
            ChunkLists lists = new ChunkLists(
                    List.of(),
                    List.of(),
                    Optional.of(WriteChunk.of(new RdmaSegment(9, (int) message.byteSize(), chunk.address()))));
            RpcRdmaReply reply = ReplyDecoding.decode(
                    "t",
                    new RdmaNoMsg(XID, 32, lists),
                    null,
                    plan(List.of(), 1024),
                    ReplyExpectation.upTo(500),
                    chunk,
                    List.of());
            assertEquals(RdmaProcedure.RDMA_NOMSG, reply.replyProcedure());
            assertTrue(reply.replyChunkOffered());
            assertEquals(16, reply.results().byteSize());
            assertFalse(reply.results().isNative(), "a copy: the chunk memory is freed after");
        }
    }

    @Test
    void deniedRepliesAreRepliesNotExceptions() throws Exception {
        MemorySegment message = rpcReply(
                new RejectedReply(XID, RejectStat.AUTH_ERROR, null, org.panamardma.oncrpc.AuthStat.AUTH_TOOWEAK));
        RpcRdmaReply reply = ReplyDecoding.decode(
                "t",
                new RdmaMsg(XID, 1, ChunkLists.NONE),
                message,
                plan(List.of(), 0),
                ReplyExpectation.SMALL,
                null,
                List.of());
        assertNull(reply.acceptStat());
        assertFalse(reply.isSuccess());
    }

    @Test
    void rdmaErrorsBecomeTypedExceptions() {
        RpcRdmaException.VersionError vers = assertThrows(
                RpcRdmaException.VersionError.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaError.VersionMismatch(XID, 1, 1, 1),
                        null,
                        plan(List.of(), 0),
                        ReplyExpectation.SMALL,
                        null,
                        List.of()));
        assertEquals(1, vers.low());
        assertEquals(1, vers.high());
        RpcRdmaException.ChunkError chunk = assertThrows(
                RpcRdmaException.ChunkError.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaError.ChunkError(XID, 1),
                        null,
                        plan(List.of(), 0),
                        ReplyExpectation.SMALL,
                        null,
                        List.of()));
        assertEquals(RdmaError.ERR_CHUNK, chunk.code());
        RpcRdmaException.ChunkError other = assertThrows(
                RpcRdmaException.ChunkError.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaError.Unrecognized(XID, 1, 7, List.of()),
                        null,
                        plan(List.of(), 0),
                        ReplyExpectation.SMALL,
                        null,
                        List.of()));
        assertEquals(7, other.code());
    }

    @Test
    void inconsistentRepliesAreBadReplies() {
        MemorySegment ok = rpcReply(AcceptedReply.success(XID, OpaqueAuth.NONE));
        // RDMA_NOMSG when no Reply chunk was offered
        assertThrows(
                RpcRdmaException.BadReply.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaNoMsg(XID, 1, ChunkLists.NONE),
                        null,
                        plan(List.of(), 0),
                        ReplyExpectation.SMALL,
                        null,
                        List.of()));
        // a Write chunk longer than the target
        MemorySegment target = MemorySegment.ofArray(new byte[10]);
        assertThrows(
                RpcRdmaException.BadReply.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaMsg(XID, 1, writeList(11)),
                        ok,
                        plan(List.of(true), 0),
                        ReplyExpectation.placedInto(target, 100),
                        null,
                        Arrays.asList((MemorySegment) null)));
        // more Write chunks than offered
        assertThrows(
                RpcRdmaException.BadReply.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaMsg(XID, 1, writeList(1, 1)),
                        ok,
                        plan(List.of(), 0),
                        ReplyExpectation.SMALL,
                        null,
                        List.of()));
        // a truncated RPC header, a draft-only RDMA_MSGP
        assertThrows(
                RpcRdmaException.BadReply.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaMsg(XID, 1, ChunkLists.NONE),
                        ok.asSlice(0, 10),
                        plan(List.of(), 0),
                        ReplyExpectation.SMALL,
                        null,
                        List.of()));
        assertThrows(
                RpcRdmaException.BadReply.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaMsgp(XID, 1, 4, 4, ChunkLists.NONE),
                        ok,
                        plan(List.of(), 0),
                        ReplyExpectation.SMALL,
                        null,
                        List.of()));
    }

    /**
     * The chunks a reply returns must be the call's (RFC 8166 section 3.4.6: the Write list and Reply chunk come
     * back with the lengths written): same segments, handles and offsets, no longer. Anything else is a bad reply,
     * never a smaller or relocated placement; and a reply carries no Read list.
     */
    @Test
    void returnedChunksMustEchoTheOfferedOnes() throws Exception {
        MemorySegment ok = rpcReply(AcceptedReply.success(XID, OpaqueAuth.NONE), 0, 8);
        MemorySegment target = MemorySegment.ofArray(new byte[100]);
        ReplyExpectation placed = ReplyExpectation.placedInto(target, 200);
        RdmaSegment offered = new RdmaSegment(7, 100, 0x1000);
        ChunkLists call = new ChunkLists(List.of(), List.of(WriteChunk.of(offered)), Optional.empty());
        List<MemorySegment> noBounce = Arrays.asList((MemorySegment) null);
        // the right echo, 8 bytes written: fine
        RpcRdmaReply good = ReplyDecoding.decode(
                "t", new RdmaMsg(XID, 1, writeList(8)), ok, plan(List.of(true), 0), placed, null, noBounce, call);
        assertEquals(8, good.placements().getFirst().length());
        for (RdmaSegment bad : List.of(
                new RdmaSegment(8, 8, 0x1000), new RdmaSegment(7, 8, 0x1008), new RdmaSegment(7, 101, 0x1000))) {
            RpcRdmaException.BadReply e = assertThrows(
                    RpcRdmaException.BadReply.class,
                    () -> ReplyDecoding.decode(
                            "t",
                            new RdmaMsg(
                                    XID, 1, new ChunkLists(List.of(), List.of(WriteChunk.of(bad)), Optional.empty())),
                            ok,
                            plan(List.of(true), 0),
                            placed,
                            null,
                            noBounce,
                            call),
                    bad.toString());
            assertTrue(e.getMessage().contains("the call offered"), e.getMessage());
        }
        // two segments for the one offered
        assertThrows(
                RpcRdmaException.BadReply.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaMsg(
                                XID,
                                1,
                                new ChunkLists(
                                        List.of(),
                                        List.of(WriteChunk.of(
                                                new RdmaSegment(7, 4, 0x1000), new RdmaSegment(7, 4, 0x1000))),
                                        Optional.empty())),
                        ok,
                        plan(List.of(true), 0),
                        placed,
                        null,
                        noBounce,
                        call));
        // a Reply chunk the call did not offer, under RDMA_MSG
        assertThrows(
                RpcRdmaException.BadReply.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaMsg(XID, 1, new ChunkLists(List.of(), List.of(), Optional.of(WriteChunk.of(offered)))),
                        ok,
                        plan(List.of(true), 0),
                        placed,
                        null,
                        noBounce,
                        call));
        // a Read list in a reply (the draft's RDMA_DONE form, retired)
        RpcRdmaException.BadReply e = assertThrows(
                RpcRdmaException.BadReply.class,
                () -> ReplyDecoding.decode(
                        "t",
                        new RdmaMsg(
                                XID,
                                1,
                                new ChunkLists(
                                        List.of(new org.panamardma.rpcrdma.ReadSegment(0, offered)),
                                        List.of(),
                                        Optional.empty())),
                        ok,
                        plan(List.of(true), 0),
                        placed,
                        null,
                        noBounce,
                        call));
        assertTrue(e.getMessage().contains("Read list"), e.getMessage());
    }

    @Test
    void errVersEchoingTheRefusedVersionIsRecognized() {
        // knfsd's answer to a version-2 header: xid, 2 (echoed), credits, RDMA_ERROR, ERR_VERS, 1, 1
        MemorySegment m = MemorySegment.ofArray(new byte[28]);
        XdrEncoder out = new XdrEncoder(m);
        out.putInt(XID).putInt(2).putInt(64).putInt(4).putInt(1).putInt(1).putInt(1);
        RdmaError.VersionMismatch v = ReplyDecoding.errVersEchoingOurVersion(m).orElseThrow();
        assertEquals(new RdmaError.VersionMismatch(XID, 64, 1, 1), v);
        out = new XdrEncoder(m);
        out.putInt(XID).putInt(2).putInt(64).putInt(4).putInt(2).putInt(1).putInt(1); // ERR_CHUNK: not this
        assertTrue(ReplyDecoding.errVersEchoingOurVersion(m).isEmpty());
        assertTrue(ReplyDecoding.errVersEchoingOurVersion(m.asSlice(0, 24)).isEmpty());
    }
}
