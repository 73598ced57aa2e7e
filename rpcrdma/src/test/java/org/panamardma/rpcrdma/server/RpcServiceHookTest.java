package org.panamardma.rpcrdma.server;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.ConfigRdma;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.HeaderLimits;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.XdrDecoder;

/**
 * The {@link RpcService} hook of {@link RpcRdmaCallHandler}: what a service other than the library's own dispatcher
 * (the oncrpc4j bridge) is handed: the whole call as the client meant it (Read chunks put back in place), a decoder
 * at its arguments, the connection's addresses; and that its reply goes out on the same paths as a dispatcher's.
 */
class RpcServiceHookTest {
    private static final int XID = 0x5eed_0001; // the RPC XID of RpcRdmaCallHandlerTest's calls
    private static final ConnectionSettings SETTINGS = new ConnectionSettings(4096, 1024, 8, 1 << 20, 1 << 20, 4);
    private static final InetSocketAddress LOCAL = new InetSocketAddress("10.77.0.2", 20050);
    private static final InetSocketAddress REMOTE = new InetSocketAddress("10.77.0.1", 40001);

    private final InMemoryChunkTransfers client = new InMemoryChunkTransfers();
    private RpcService.Incoming seen;
    private byte[] seenMessage;
    private long seenArgumentsAt;

    /** Records what it is handed, then lets the echo dispatcher answer. */
    private final RpcService recording = (call, out) -> {
        seen = call;
        seenMessage = call.message().toArray(JAVA_BYTE);
        seenArgumentsAt = call.arguments().position();
        EchoProgram.dispatcher().serve(call, out);
    };

    private RpcRdmaCallHandler handler() {
        return new RpcRdmaCallHandler(
                recording,
                new RpcRdmaHeaderDecoder(HeaderLimits.DEFAULT),
                SETTINGS,
                client,
                new ServerStatistics(),
                ConfigRdmaProgram.INSTANCE,
                ConnectionMemory.unlimited(),
                "test peer",
                Optional.of(LOCAL),
                Optional.of(REMOTE));
    }

    private MemorySegment handle(byte[] message) throws IOException {
        byte[] send = new byte[SETTINGS.sendInline()];
        RpcRdmaCallHandler.Outcome o = handler().handle(MemorySegment.ofArray(message), MemorySegment.ofArray(send));
        assertTrue(o.sendLength() > 0, "answered: " + o);
        return MemorySegment.ofArray(send).asSlice(0, o.sendLength());
    }

    @Test
    void anInlineCallIsHandedOverWholeWithItsAddresses() throws IOException {
        byte[] payload = EchoProgram.pattern(301, 5);
        byte[] rpc = RpcRdmaCallHandlerTest.echoCall(EchoProgram.ECHO_PLAIN, payload);
        MemorySegment sent = handle(RpcRdmaCallHandlerTest.concat(
                RpcRdmaCallHandlerTest.header(new RdmaMsg(XID, 1, ChunkLists.NONE)), rpc));
        assertArrayEquals(rpc, seenMessage, "the RPC message, without the transport header");
        assertEquals(
                RpcRdmaCallHandlerTest.rpcHeader(EchoProgram.ECHO_PLAIN).length,
                seenArgumentsAt,
                "the decoder stands after the call header");
        assertEquals(EchoProgram.ECHO_PLAIN, seen.header().procedure());
        assertEquals(Optional.of(LOCAL), seen.local());
        assertEquals(Optional.of(REMOTE), seen.remote());
        DecodedHeader d = decode(sent);
        XdrDecoder in = new XdrDecoder(d.rpcMessage(sent));
        assertEquals(AcceptedReply.success(XID, OpaqueAuth.NONE), RpcMessageCodec.decode(in));
        assertArrayEquals(payload, in.getOpaqueBytes(EchoProgram.MAX));
    }

    @Test
    void aReadChunkIsPutBackInPlaceBeforeTheServiceSeesTheMessage() throws IOException {
        byte[] payload = EchoProgram.pattern(5001, 6); // 3 bytes of roundup the client leaves out
        byte[] rpcHeader = RpcRdmaCallHandlerTest.rpcHeader(EchoProgram.ECHO);
        RdmaSegment data = client.register(payload);
        RdmaSegment target = client.registerEmpty(8192);
        byte[] reduced = RpcRdmaCallHandlerTest.concat(rpcHeader, RpcRdmaCallHandlerTest.words(payload.length));
        MemorySegment sent = handle(RpcRdmaCallHandlerTest.concat(
                RpcRdmaCallHandlerTest.header(new RdmaMsg(
                        XID,
                        1,
                        RpcRdmaCallHandlerTest.chunks(
                                List.of(new ReadSegment(rpcHeader.length + 4, data)),
                                List.of(WriteChunk.of(target)),
                                null))),
                reduced));
        assertArrayEquals(
                RpcRdmaCallHandlerTest.echoCall(EchoProgram.ECHO, payload),
                seenMessage,
                "the full XDR stream, roundup restored");
        RdmaMsg reply = assertInstanceOf(RdmaMsg.class, decode(sent).header());
        assertEquals(payload.length, reply.chunks().writeList().get(0).length(), "the result went by RDMA Write");
        assertArrayEquals(payload, Arrays.copyOf(client.contents(target), payload.length));
    }

    @Test
    void theConnectionConfigurationProtocolStaysTheTransportsOwn() throws IOException {
        byte[] call = RpcRdmaCallHandlerTest.concat(
                RpcRdmaCallHandlerTest.words(XID, 0, 2, ConfigRdma.PROGRAM, ConfigRdma.VERSION, 1, 0, 0, 0, 0),
                RpcRdmaCallHandlerTest.words(4096, 4096, 4));
        MemorySegment sent = handle(RpcRdmaCallHandlerTest.concat(
                RpcRdmaCallHandlerTest.header(new RdmaMsg(XID, 1, ChunkLists.NONE)), call));
        assertNull(seen, "the service never saw the transport's own program");
        XdrDecoder in = new XdrDecoder(decode(sent).rpcMessage(sent));
        assertEquals(AcceptedReply.success(XID, OpaqueAuth.NONE), RpcMessageCodec.decode(in));
    }

    private static DecodedHeader decode(MemorySegment sent) {
        try {
            return new RpcRdmaHeaderDecoder().decode(sent);
        } catch (org.panamardma.rpcrdma.RpcRdmaHeaderException e) {
            throw new AssertionError(e);
        }
    }
}
