package org.panamardma.rpcrdma.server;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.HeaderLimits;
import org.panamardma.rpcrdma.RdmaDone;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaMsgp;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.testing.Bytes;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/** The server's protocol logic against a host-played client memory ({@link InMemoryChunkTransfers}). */
class RpcRdmaCallHandlerTest {
    private static final int XID = 0x5eed_0001;
    private static final ConnectionSettings SETTINGS = new ConnectionSettings(4096, 1024, 8, 1 << 20, 1 << 20, 4);

    private final InMemoryChunkTransfers client = new InMemoryChunkTransfers();
    private final ServerStatistics stats = new ServerStatistics();
    private RpcRdmaCallHandler handler = handler(HeaderLimits.DEFAULT);

    private RpcRdmaCallHandler handler(HeaderLimits limits) {
        return new RpcRdmaCallHandler(
                EchoProgram.dispatcher(),
                new RpcRdmaHeaderDecoder(limits),
                SETTINGS,
                client,
                stats,
                ConfigRdmaProgram.INSTANCE);
    }

    // ------------------------------------------------------------------------------------------ message building

    static byte[] rpcHeader(int procedure) {
        RpcCall call =
                RpcCall.of(XID, EchoProgram.PROGRAM, EchoProgram.VERSION, procedure, OpaqueAuth.NONE, OpaqueAuth.NONE);
        byte[] b = new byte[RpcMessageCodec.size(call)];
        RpcMessageCodec.encode(call, new XdrEncoder(MemorySegment.ofArray(b)));
        return b;
    }

    /** A whole echo call: header and opaque argument. */
    static byte[] echoCall(int procedure, byte[] payload) {
        byte[] header = rpcHeader(procedure);
        byte[] b = new byte[header.length + 4 + (payload.length + 3) / 4 * 4];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(b));
        out.putFixedOpaque(header);
        out.putOpaque(payload, EchoProgram.MAX);
        return b;
    }

    static byte[] concat(byte[]... parts) {
        return Bytes.concat(parts);
    }

    static byte[] header(RpcRdmaHeader h) {
        return RpcRdmaHeaderEncoder.toBytes(h);
    }

    static byte[] words(int... words) {
        return Bytes.words(words);
    }

    static ChunkLists chunks(List<ReadSegment> reads, List<WriteChunk> writes, WriteChunk reply) {
        return new ChunkLists(reads, writes, Optional.ofNullable(reply));
    }

    private record Answer(RpcRdmaCallHandler.Outcome outcome, RpcRdmaHeader header, MemorySegment rest) {}

    private Answer handle(byte[] message) throws IOException {
        byte[] send = new byte[SETTINGS.sendInline()];
        RpcRdmaCallHandler.Outcome o = handler.handle(MemorySegment.ofArray(message), MemorySegment.ofArray(send));
        if (o.sendLength() == 0) {
            return new Answer(o, null, null);
        }
        MemorySegment sent = MemorySegment.ofArray(send).asSlice(0, o.sendLength());
        try {
            DecodedHeader d = new RpcRdmaHeaderDecoder().decode(sent);
            return new Answer(o, d.header(), d.rpcMessage(sent));
        } catch (RpcRdmaHeaderException e) {
            throw new AssertionError("server sent an undecodable header", e);
        }
    }

    /** Decodes an RPC reply and returns the decoder standing at its results, asserting SUCCESS. */
    private static XdrDecoder success(MemorySegment reply) {
        XdrDecoder in = new XdrDecoder(reply);
        assertEquals(AcceptedReply.success(XID, OpaqueAuth.NONE), RpcMessageCodec.decode(in));
        return in;
    }

    private static void assertChunkError(Answer a) {
        assertEquals(ReplyPath.ERR_CHUNK, a.outcome().path());
        assertEquals(new RdmaError.ChunkError(XID, a.header().credits()), a.header());
        assertTrue(a.header().credits() >= 1, "an error grants credit too");
    }

    // ------------------------------------------------------------------------------------------------ good calls

    @Test
    void nullCallInline() throws IOException {
        Answer a = handle(concat(header(new RdmaMsg(XID, 4, ChunkLists.NONE)), rpcHeader(EchoProgram.NULL)));
        assertEquals(ReplyPath.INLINE, a.outcome().path());
        assertEquals(new RdmaMsg(XID, 4, ChunkLists.NONE), a.header());
        assertTrue(success(a.rest()).atEnd());
        assertEquals(1, stats.inlineCalls());
    }

    @Test
    void echoInline() throws IOException {
        byte[] payload = EchoProgram.pattern(301, 1);
        Answer a = handle(concat(header(new RdmaMsg(XID, 2, ChunkLists.NONE)), echoCall(EchoProgram.ECHO, payload)));
        assertEquals(ReplyPath.INLINE, a.outcome().path());
        XdrDecoder in = success(a.rest());
        assertArrayEquals(payload, in.getOpaqueBytes(EchoProgram.MAX));
        assertTrue(in.atEnd());
    }

    @Test
    void readChunkIsInsertedAtItsPositionAndReplyGoesToReplyChunk() throws IOException {
        byte[] payload = EchoProgram.pattern(4001, 2); // 3 roundup bytes the client does not send
        byte[] rpc = rpcHeader(EchoProgram.ECHO_PLAIN);
        RdmaSegment data = client.register(payload);
        RdmaSegment replyArea = client.registerEmpty(8192);
        int position = rpc.length + 4;
        byte[] reduced = concat(rpc, words(payload.length));
        Answer a = handle(concat(
                header(new RdmaMsg(
                        XID, 3, chunks(List.of(new ReadSegment(position, data)), List.of(), WriteChunk.of(replyArea)))),
                reduced));
        assertEquals(ReplyPath.REPLY_CHUNK, a.outcome().path());
        assertEquals(1, stats.readChunkCalls());
        RdmaNoMsg noMsg = assertInstanceOf(RdmaNoMsg.class, a.header());
        int written = noMsg.chunks().replyChunk().orElseThrow().length();
        assertEquals(24 + 4 + 4004, written, "reply header, length word, data with roundup");
        XdrDecoder in =
                success(MemorySegment.ofArray(client.contents(replyArea)).asSlice(0, written));
        assertArrayEquals(payload, in.getOpaqueBytes(EchoProgram.MAX));
    }

    @Test
    void positionZeroCallAndWriteListReply() throws IOException {
        byte[] payload = EchoProgram.pattern(20_000, 3);
        RdmaSegment whole = client.register(echoCall(EchoProgram.ECHO, payload));
        RdmaSegment target = client.registerEmpty(32_768);
        Answer a = handle(header(new RdmaNoMsg(
                XID, 100, chunks(List.of(new ReadSegment(0, whole)), List.of(WriteChunk.of(target)), null))));
        assertEquals(ReplyPath.WRITE_LIST, a.outcome().path());
        assertEquals(1, stats.positionZeroCalls());
        RdmaMsg msg = assertInstanceOf(RdmaMsg.class, a.header());
        assertEquals(SETTINGS.maxCredits(), msg.credits(), "100 asked, 8 at most");
        assertEquals(
                List.of(WriteChunk.of(new RdmaSegment(target.handle(), payload.length, target.offset()))),
                msg.chunks().writeList());
        XdrDecoder in = success(a.rest());
        assertEquals(payload.length, in.getInt(), "the length word stays inline");
        assertTrue(in.atEnd(), "the data and its roundup are not inline");
        assertArrayEquals(payload, Arrays.copyOf(client.contents(target), payload.length));
    }

    @Test
    void writeListSpreadsOverSegmentsAndUnusedChunksComeBackEmpty() throws IOException {
        byte[] payload = EchoProgram.pattern(6000, 4);
        RdmaSegment s1 = client.registerEmpty(4096);
        RdmaSegment s2 = client.registerEmpty(4096);
        RdmaSegment spare = client.registerEmpty(100);
        Answer a = handle(concat(
                header(new RdmaMsg(
                        XID, 1, chunks(List.of(), List.of(WriteChunk.of(s1, s2), WriteChunk.of(spare)), null))),
                echoCall(EchoProgram.ECHO, payload)));
        // the call (6 KiB inline) is larger than a 1 KiB threshold, but this server receives up to 4 KiB... it
        // arrived: the receive threshold is the client's business, the message fitted our buffer
        RdmaMsg msg = assertInstanceOf(RdmaMsg.class, a.header());
        assertEquals(
                List.of(
                        WriteChunk.of(
                                new RdmaSegment(s1.handle(), 4096, s1.offset()),
                                new RdmaSegment(s2.handle(), 6000 - 4096, s2.offset())),
                        WriteChunk.of(new RdmaSegment(spare.handle(), 0, spare.offset()))),
                msg.chunks().writeList());
        assertArrayEquals(payload, concat(client.contents(s1), Arrays.copyOf(client.contents(s2), 6000 - 4096)));
    }

    /** Memory as a pool lends it: an earlier call's bytes in it, so that only what the assembler writes is zero. */
    static MemorySegment usedMemory(long bytes) {
        MemorySegment m = MemorySegment.ofArray(new byte[(int) bytes]);
        m.fill((byte) 0xEE);
        return m;
    }

    @Test
    void readChunkInTheMiddleGetsItsRoundupBack() throws IOException, ChunkFault {
        // reduced stream: word A, length 5, word B; the 5 data bytes (and 3 of roundup) belong at position 8
        RdmaSegment data = client.register(new byte[] {1, 2, 3, 4, 5});
        RdmaMsg h = new RdmaMsg(XID, 1, chunks(List.of(new ReadSegment(8, data)), List.of(), null));
        CallAssembler.Assembled c = CallAssembler.assemble(
                h,
                MemorySegment.ofArray(words(0xA, 5, 0xB)),
                client,
                100,
                new CallMemory(ConnectionMemory.unlimited()),
                RpcRdmaCallHandlerTest::usedMemory);
        assertArrayEquals(
                concat(words(0xA, 5), new byte[] {1, 2, 3, 4, 5, 0, 0, 0}, words(0xB)),
                c.call().toArray(JAVA_BYTE));
        assertEquals(CallAssembler.CallPath.READ_CHUNKS, c.path());
    }

    @Test
    void readChunkAlreadyRoundedUpGetsNoMorePadding() throws IOException, ChunkFault {
        RdmaSegment data = client.register(new byte[] {1, 2, 3, 4, 5, 0, 0, 0}); // draft section 3.7 allows this
        RdmaMsg h = new RdmaMsg(XID, 1, chunks(List.of(new ReadSegment(8, data)), List.of(), null));
        CallAssembler.Assembled c = CallAssembler.assemble(
                h,
                MemorySegment.ofArray(words(0xA, 5, 0xB)),
                client,
                100,
                new CallMemory(ConnectionMemory.unlimited()),
                RpcRdmaCallHandlerTest::usedMemory);
        assertArrayEquals(
                concat(words(0xA, 5), new byte[] {1, 2, 3, 4, 5, 0, 0, 0}, words(0xB)),
                c.call().toArray(JAVA_BYTE));
    }

    @Test
    void creditsFollowTheRequestWithinOneAndTheMaximum() throws IOException {
        for (int[] asked : new int[][] {{0, 1}, {1, 1}, {5, 5}, {8, 8}, {9, 8}, {-1, 8}}) {
            Answer a = handle(concat(header(new RdmaMsg(XID, asked[0], ChunkLists.NONE)), rpcHeader(EchoProgram.NULL)));
            assertEquals(asked[1], a.header().credits(), "asked " + Integer.toUnsignedString(asked[0]));
        }
    }

    @Test
    void unknownProgramIsAnRpcErrorNotATransportOne() throws IOException {
        RpcCall call = RpcCall.of(XID, 77, 1, 0, OpaqueAuth.NONE, OpaqueAuth.NONE);
        byte[] rpc = new byte[RpcMessageCodec.size(call)];
        RpcMessageCodec.encode(call, new XdrEncoder(MemorySegment.ofArray(rpc)));
        Answer a = handle(concat(header(new RdmaMsg(XID, 1, ChunkLists.NONE)), rpc));
        assertEquals(
                AcceptedReply.failure(XID, OpaqueAuth.NONE, AcceptStat.PROG_UNAVAIL),
                RpcMessageCodec.decode(new XdrDecoder(a.rest())));
    }

    @Test
    void undecodableCallIsAnsweredGarbageArgsUnderTheTransportXid() throws IOException {
        Answer a = handle(concat(header(new RdmaMsg(XID, 1, ChunkLists.NONE)), words(XID, 7)));
        assertEquals(
                AcceptedReply.failure(XID, OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS),
                RpcMessageCodec.decode(new XdrDecoder(a.rest())));
    }

    // ------------------------------------------------------------------------------------------------ bad input

    @Test
    void wrongVersionGetsErrVersWithOurRange() throws IOException {
        Answer a = handle(words(XID, 2, 1, 0, 0, 0, 0));
        assertEquals(ReplyPath.ERR_VERS, a.outcome().path());
        assertEquals(new RdmaError.VersionMismatch(XID, 1, 1, 1), a.header());
    }

    @Test
    void truncatedHeaderAfterTheVersionGetsErrChunk() throws IOException {
        assertChunkError(handle(words(XID, 1, 1)));
        assertChunkError(handle(words(XID, 1, 1, 0, 1))); // a Read list entry that ends at once
    }

    @Test
    void messageTooShortForAVersionIsDropped() throws IOException {
        assertEquals(ReplyPath.DROPPED, handle(new byte[] {1, 2, 3}).outcome().path());
        assertEquals(ReplyPath.DROPPED, handle(words(XID)).outcome().path());
    }

    @Test
    void unknownMessageTypeGetsErrChunk() throws IOException {
        assertChunkError(handle(words(XID, 1, 1, 5)));
        assertChunkError(handle(words(XID, 1, 1, 0x8000_0000)));
    }

    @Test
    void retiredAndReplyOnlyTypes() throws IOException {
        assertChunkError(handle(header(new RdmaMsgp(XID, 1, 4096, 4096, ChunkLists.NONE))));
        assertEquals(
                ReplyPath.DROPPED,
                handle(header(new RdmaDone(XID, 1))).outcome().path());
        assertEquals(
                ReplyPath.DROPPED,
                handle(header(new RdmaError.ChunkError(XID, 1))).outcome().path());
    }

    @Test
    void absurdChunkCountsGetErrChunk() throws IOException {
        // a Write chunk declaring 2^31-1 segments
        assertChunkError(handle(words(XID, 1, 1, 0, 0, 1, 0x7fff_ffff, 0, 0)));
        // a Reply chunk declaring 65 segments (limit 64), with all of them present
        assertChunkError(handle(concat(words(XID, 1, 1, 0, 0, 0, 1, 65), new byte[65 * 16])));
        // 65 Read list entries (limit 64)
        byte[] reads = new byte[0];
        for (int i = 0; i < 65; i++) {
            reads = concat(reads, words(1, 0, 1, 4, 0, 0));
        }
        assertChunkError(handle(concat(words(XID, 1, 1, 1), reads, words(0, 0, 0))));
        // 17 Write chunks (limit 16)
        byte[] writes = new byte[0];
        for (int i = 0; i < 17; i++) {
            writes = concat(writes, words(1, 1, 1, 4, 0, 0));
        }
        assertChunkError(handle(concat(words(XID, 1, 1, 0, 0), writes, words(0, 0))));
    }

    @Test
    void segmentLengthOverTheLimitGetsErrChunk() throws IOException {
        int tooLong = HeaderLimits.DEFAULT.maxSegmentLength() + 1;
        assertChunkError(handle(concat(
                header(new RdmaMsg(
                        XID, 1, chunks(List.of(), List.of(WriteChunk.of(new RdmaSegment(1, tooLong, 0))), null))),
                rpcHeader(0))));
        assertChunkError(handle(words(XID, 1, 1, 0, 0, 0, 1, 1, 7, 0xffff_ffff, 0, 0)));
    }

    @Test
    void summedLengthOverflowGetsErrChunk() throws IOException {
        handler = handler(new HeaderLimits(64, 16, 64, Integer.MAX_VALUE));
        RdmaSegment big = new RdmaSegment(1, 0x7000_0000, 0);
        assertChunkError(handle(concat(
                header(new RdmaMsg(XID, 1, chunks(List.of(), List.of(), WriteChunk.of(big, big)))), rpcHeader(0))));
        assertChunkError(handle(concat(
                header(new RdmaMsg(
                        XID, 1, chunks(List.of(new ReadSegment(28, big), new ReadSegment(28, big)), List.of(), null))),
                rpcHeader(0))));
    }

    @Test
    void readPositionsOutOfOrderOrBeyondTheMessageGetErrChunk() throws IOException {
        RdmaSegment data = client.register(new byte[8]);
        byte[] rpc = rpcHeader(EchoProgram.ECHO);
        // decreasing positions: 40, then 36
        assertChunkError(handle(concat(
                words(XID, 1, 1, 0, 1, 40, data.handle(), 8, 0, 0, 1, 36, data.handle(), 8, 0, 0, 0, 0, 0),
                rpc,
                words(8))));
        // beyond the inline message
        assertChunkError(handle(concat(
                header(new RdmaMsg(XID, 1, chunks(List.of(new ReadSegment(rpc.length + 400, data)), List.of(), null))),
                rpc,
                words(8))));
        // misaligned
        assertChunkError(handle(concat(
                header(new RdmaMsg(XID, 1, chunks(List.of(new ReadSegment(rpc.length + 2, data)), List.of(), null))),
                rpc,
                words(8))));
        // position zero in RDMA_MSG
        assertChunkError(handle(concat(
                header(new RdmaMsg(XID, 1, chunks(List.of(new ReadSegment(0, data)), List.of(), null))),
                rpc,
                words(8))));
        assertEquals(List.of(), client.transfers(), "nothing was read for a refused call");
    }

    @Test
    void noMsgWithoutAPositionZeroChunkGetsErrChunk() throws IOException {
        assertChunkError(handle(header(
                new RdmaNoMsg(XID, 1, chunks(List.of(), List.of(), WriteChunk.of(client.registerEmpty(4096)))))));
    }

    @Test
    void replyChunkTooSmallGetsErrChunk() throws IOException {
        byte[] payload = EchoProgram.pattern(2000, 5);
        RdmaSegment small = client.registerEmpty(1000);
        assertChunkError(handle(concat(
                header(new RdmaMsg(XID, 1, chunks(List.of(), List.of(), WriteChunk.of(small)))),
                echoCall(EchoProgram.ECHO_PLAIN, payload))));
        assertArrayEquals(new byte[1000], client.contents(small), "nothing written");
    }

    @Test
    void replyTooLargeWithoutReplyChunkGetsErrChunk() throws IOException {
        assertChunkError(handle(concat(
                header(new RdmaMsg(XID, 1, ChunkLists.NONE)),
                echoCall(EchoProgram.ECHO, EchoProgram.pattern(2000, 6)))));
    }

    @Test
    void writeChunkTooSmallGetsErrChunk() throws IOException {
        RdmaSegment small = client.registerEmpty(100);
        assertChunkError(handle(concat(
                header(new RdmaMsg(XID, 1, chunks(List.of(), List.of(WriteChunk.of(small)), null))),
                echoCall(EchoProgram.ECHO, EchoProgram.pattern(200, 7)))));
    }

    @Test
    void callLargerThanTheLimitGetsErrChunkBeforeAnyRead() throws IOException {
        RdmaSegment huge = new RdmaSegment(client.registerEmpty(16).handle(), 2 << 20, 0);
        assertChunkError(handle(header(
                new RdmaNoMsg(XID, 1, chunks(List.of(new ReadSegment(0, huge)), List.of(), null)))));
        assertEquals(List.of(), client.transfers());
    }

    @Test
    void failedRdmaReadIsAConnectionError() {
        RdmaSegment unknown = new RdmaSegment(0xdead, 64, 0);
        assertThrows(
                IOException.class,
                () -> handle(header(
                        new RdmaNoMsg(XID, 1, chunks(List.of(new ReadSegment(0, unknown)), List.of(), null)))));
    }

    // ------------------------------------------------------------------------------ Connection Configuration

    @Test
    void confRdmaAnswersTheConnectionsValues() throws IOException {
        RpcCall call = RpcCall.of(
                XID, ConfigRdmaProgram.PROGRAM, 1, ConfigRdmaProgram.CONF_RDMA, OpaqueAuth.NONE, OpaqueAuth.NONE);
        byte[] rpc = new byte[RpcMessageCodec.size(call) + 12];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(rpc));
        RpcMessageCodec.encode(call, out);
        new org.panamardma.rpcrdma.ConfigRdma.Request(8192, 8192, 16).encodeTo(out);
        Answer a = handle(concat(header(new RdmaMsg(XID, 1, ChunkLists.NONE)), rpc));
        XdrDecoder in = success(a.rest());
        assertEquals(
                new org.panamardma.rpcrdma.ConfigRdma.Reply(4096, 4, 4),
                org.panamardma.rpcrdma.ConfigRdma.Reply.decode(in));
        assertTrue(in.atEnd());
    }

    @Test
    void confRdmaWithTruncatedArgumentsIsGarbageArgs() throws IOException {
        RpcCall call = RpcCall.of(
                XID, ConfigRdmaProgram.PROGRAM, 1, ConfigRdmaProgram.CONF_RDMA, OpaqueAuth.NONE, OpaqueAuth.NONE);
        byte[] rpc = new byte[RpcMessageCodec.size(call) + 4];
        RpcMessageCodec.encode(call, new XdrEncoder(MemorySegment.ofArray(rpc)));
        Answer a = handle(concat(header(new RdmaMsg(XID, 1, ChunkLists.NONE)), rpc));
        assertEquals(
                AcceptedReply.failure(XID, OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS),
                RpcMessageCodec.decode(new XdrDecoder(a.rest())));
    }
}
