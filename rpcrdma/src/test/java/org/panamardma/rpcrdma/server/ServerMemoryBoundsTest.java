package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.panamardma.rpcrdma.server.RpcRdmaCallHandlerTest.chunks;
import static org.panamardma.rpcrdma.server.RpcRdmaCallHandlerTest.concat;
import static org.panamardma.rpcrdma.server.RpcRdmaCallHandlerTest.echoCall;
import static org.panamardma.rpcrdma.server.RpcRdmaCallHandlerTest.header;
import static org.panamardma.rpcrdma.server.RpcRdmaCallHandlerTest.rpcHeader;
import static org.panamardma.rpcrdma.server.RpcRdmaCallHandlerTest.words;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.limits.MemoryBudget;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.HeaderLimits;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.XdrDecoder;

/**
 * What a call may make the server allocate: bounded by the reply's real size and the server's budgets, never by
 * what the client declares (issue: an 88-byte NULL call offering a 16 MiB Reply chunk made the server allocate
 * 16 MiB).
 */
class ServerMemoryBoundsTest {
    private static final int XID = 0x5eed_0001;
    private static final int MIB = 1 << 20;
    /** The server's defaults: 4 KiB inline both ways, 32 credits, 16 MiB calls and replies. */
    private static final ConnectionSettings SETTINGS = new ConnectionSettings(4096, 4096, 32, 16 * MIB, 16 * MIB, 16);

    private final InMemoryChunkTransfers client = new InMemoryChunkTransfers();
    private final ServerStatistics stats = new ServerStatistics();
    private final MemoryBudget serverHeap = MemoryBudget.of("server heap", 64 * MIB);
    private final MemoryBudget serverPinned = MemoryBudget.of("server pinned", 64 * MIB);

    private RpcRdmaCallHandler handler(long connectionHeap, long connectionPinned) {
        ConnectionMemory memory = new ConnectionMemory(
                serverHeap.child("connection heap", connectionHeap),
                serverPinned.child("connection pinned", connectionPinned),
                TimeUnit.MILLISECONDS.toNanos(50));
        return new RpcRdmaCallHandler(
                EchoProgram.dispatcher(),
                new RpcRdmaHeaderDecoder(HeaderLimits.DEFAULT),
                SETTINGS,
                client,
                stats,
                ConfigRdmaProgram.INSTANCE,
                memory,
                "test peer");
    }

    private static long allocatedByThisThread() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static DecodedHeader decode(byte[] send, RpcRdmaCallHandler.Outcome o) {
        try {
            return new RpcRdmaHeaderDecoder().decode(MemorySegment.ofArray(send).asSlice(0, o.sendLength()));
        } catch (RpcRdmaHeaderException e) {
            throw new AssertionError("server sent an undecodable header", e);
        }
    }

    @Test
    void nullCallDeclaringA16MiBReplyChunkCostsUnder64KiB() throws IOException {
        RpcRdmaCallHandler handler = handler(32 * MIB, 32 * MIB);
        // the rkey names nothing the client registered: the server must not care before it has a reply to place
        RdmaSegment declared = new RdmaSegment(0xbad, 16 * MIB, 0x7000_0000L);
        byte[] call = concat(
                header(new RdmaMsg(XID, 8, chunks(List.of(), List.of(), WriteChunk.of(declared)))),
                rpcHeader(EchoProgram.NULL));
        MemorySegment received = MemorySegment.ofArray(call);
        byte[] send = new byte[SETTINGS.sendInline()];
        MemorySegment sendBuffer = MemorySegment.ofArray(send);
        for (int i = 0; i < 200; i++) { // warm up: class loading and the JIT allocate too
            handler.handle(received, sendBuffer);
        }
        int calls = 100;
        long before = allocatedByThisThread();
        RpcRdmaCallHandler.Outcome last = null;
        for (int i = 0; i < calls; i++) {
            last = handler.handle(received, sendBuffer);
        }
        long perCall = (allocatedByThisThread() - before) / calls;
        System.out.println("NULL call with a 16 MiB Reply chunk: " + perCall + " bytes allocated per call, reply "
                + last.sendLength() + " bytes " + last.path());
        assertTrue(perCall < 64 * 1024, perCall + " bytes per call");
        assertEquals(ReplyPath.INLINE, last.path());
        DecodedHeader d = decode(send, last);
        assertEquals(new RdmaMsg(XID, 8, ChunkLists.NONE), d.header());
        XdrDecoder in = new XdrDecoder(d.rpcMessage(MemorySegment.ofArray(send).asSlice(0, last.sendLength())));
        assertEquals(AcceptedReply.success(XID, OpaqueAuth.NONE), RpcMessageCodec.decode(in));
        assertEquals(0, serverHeap.used());
        assertTrue(serverHeap.peak() == 0, "a NULL reply fits the Send buffer: no heap from the budget, " + serverHeap);
    }

    @Test
    void largeReplyTakesWhatItNeedsNotWhatTheReplyChunkDeclares() throws IOException {
        RpcRdmaCallHandler handler = handler(32 * MIB, 32 * MIB);
        byte[] payload = EchoProgram.pattern(100_000, 9);
        byte[] rpc = rpcHeader(EchoProgram.ECHO_PLAIN);
        RdmaSegment data = client.register(payload);
        RdmaSegment replyArea = client.registerEmpty(16 * MIB); // the client's memory, allocated before measuring
        byte[] reduced = concat(rpc, words(payload.length));
        byte[] call = concat(
                header(new RdmaMsg(
                        XID,
                        3,
                        chunks(List.of(new ReadSegment(rpc.length + 4, data)), List.of(), WriteChunk.of(replyArea)))),
                reduced);
        byte[] send = new byte[SETTINGS.sendInline()];
        long before = allocatedByThisThread();
        RpcRdmaCallHandler.Outcome o = handler.handle(MemorySegment.ofArray(call), MemorySegment.ofArray(send));
        long allocated = allocatedByThisThread() - before;
        System.out.println("100,000-byte echo through a 16 MiB Reply chunk: " + allocated + " bytes allocated, "
                + "heap budget peak " + serverHeap.peak() + ", pinned peak " + serverPinned.peak());
        assertEquals(ReplyPath.REPLY_CHUNK, o.path());
        RdmaNoMsg noMsg = assertInstanceOf(RdmaNoMsg.class, decode(send, o).header());
        int written = noMsg.chunks().replyChunk().orElseThrow().length();
        XdrDecoder in =
                new XdrDecoder(MemorySegment.ofArray(client.contents(replyArea)).asSlice(0, written));
        assertEquals(AcceptedReply.success(XID, OpaqueAuth.NONE), RpcMessageCodec.decode(in));
        assertArrayEquals(payload, in.getOpaqueBytes(EchoProgram.MAX));
        // the assembled call (~100 KB) plus a reply grown by doubling (at most twice ~100 KB), plus copies made
        // by the fake transfers: far below the 16 MiB declared
        assertTrue(allocated < MIB, allocated + " bytes");
        assertTrue(serverHeap.peak() <= 3 * 100_000 + 64 * 1024, serverHeap.toString());
        assertEquals(0, serverHeap.used());
        assertEquals(0, serverPinned.used());
    }

    @Test
    void callBeyondTheConnectionsHeapBudgetIsRefusedAndTheConnectionGoesOn() throws IOException {
        RpcRdmaCallHandler handler = handler(64 * 1024, 32 * MIB);
        byte[] big = EchoProgram.pattern(200_000, 4);
        byte[] whole = echoCall(EchoProgram.ECHO_PLAIN, big);
        RdmaSegment longCall = client.register(whole);
        byte[] send = new byte[SETTINGS.sendInline()];
        RpcRdmaCallHandler.Outcome o = handler.handle(
                MemorySegment.ofArray(header(
                        new RdmaNoMsg(XID, 1, chunks(List.of(new ReadSegment(0, longCall)), List.of(), null)))),
                MemorySegment.ofArray(send));
        assertEquals(ReplyPath.ERR_CHUNK, o.path());
        assertInstanceOf(RdmaError.ChunkError.class, decode(send, o).header());
        assertEquals(1, stats.memoryRefusals());
        assertEquals(0, serverHeap.used(), "nothing held after the refusal");
        assertEquals(List.of(), client.transfers(), "refused before any RDMA Read");
        // a call within the budget on the same connection is served
        o = handler.handle(
                MemorySegment.ofArray(
                        concat(header(new RdmaMsg(XID, 1, ChunkLists.NONE)), rpcHeader(EchoProgram.NULL))),
                MemorySegment.ofArray(send));
        assertEquals(ReplyPath.INLINE, o.path());
    }

    @Test
    void readChunkBeyondThePinnedBudgetIsRefused() throws IOException {
        RpcRdmaCallHandler handler = handler(32 * MIB, 1024);
        byte[] payload = EchoProgram.pattern(4000, 2);
        byte[] rpc = rpcHeader(EchoProgram.ECHO_PLAIN);
        RdmaSegment data = client.register(payload);
        byte[] send = new byte[SETTINGS.sendInline()];
        RpcRdmaCallHandler.Outcome o = handler.handle(
                MemorySegment.ofArray(concat(
                        header(new RdmaMsg(
                                XID, 3, chunks(List.of(new ReadSegment(rpc.length + 4, data)), List.of(), null))),
                        concat(rpc, words(payload.length)))),
                MemorySegment.ofArray(send));
        assertEquals(ReplyPath.ERR_CHUNK, o.path());
        assertEquals(0, serverPinned.used());
        assertEquals(0, serverHeap.used());
        assertEquals(1, stats.memoryRefusals());
    }

    @Test
    void writeAndReplyChunksWithNoSegmentAreRefused() throws IOException {
        RpcRdmaCallHandler handler = handler(32 * MIB, 32 * MIB);
        byte[] send = new byte[SETTINGS.sendInline()];
        WriteChunk empty = new WriteChunk(List.of());
        for (ChunkLists lists : List.of(
                chunks(List.of(), List.of(empty), null),
                chunks(List.of(), List.of(), empty),
                chunks(List.of(), List.of(WriteChunk.of(client.registerEmpty(64)), empty), null))) {
            RpcRdmaCallHandler.Outcome o = handler.handle(
                    MemorySegment.ofArray(concat(
                            header(new RdmaMsg(XID, 1, lists)),
                            echoCall(EchoProgram.ECHO, EchoProgram.pattern(64, 1)))),
                    MemorySegment.ofArray(send));
            assertEquals(ReplyPath.ERR_CHUNK, o.path(), lists.toString());
            assertEquals(new RdmaError.ChunkError(XID, 1), decode(send, o).header());
        }
        assertEquals(0, stats.inlineCalls(), "none of them reached the dispatcher");
    }
}
