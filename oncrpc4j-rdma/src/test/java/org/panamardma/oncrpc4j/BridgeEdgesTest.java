package org.panamardma.oncrpc4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.FileChunk;
import org.glassfish.grizzly.asyncqueue.WritableMessage;
import org.glassfish.grizzly.memory.Buffers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc4j.demo.DemoService;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.HeaderLimits;
import org.panamardma.rpcrdma.RdmaDone;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaMsgp;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.rpcrdma.server.ReplyPath;
import org.panamardma.xdr.DataPlacement;
import org.panamardma.xdr.XdrEncoder;

/**
 * The edges of the bridge: transport headers it never sees (answered exactly as the server answers them for its own
 * dispatcher), a file chunk that does not end the reply, the file chunk's release, the builder's checks.
 */
class BridgeEdgesTest {
    private static final int XID = 0x0bad_0001;

    @TempDir
    Path files;

    static byte[] words(int... words) {
        byte[] b = new byte[words.length * 4];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(b));
        for (int w : words) {
            out.putInt(w);
        }
        return b;
    }

    /** Messages a client must not send; each is refused by the transport, before any RPC decoding. */
    static List<byte[]> badHeaders() {
        List<byte[]> bad = new ArrayList<>();
        bad.add(words(XID, 2, 1, 0, 0, 0, 0)); // version 2: ERR_VERS
        bad.add(words(XID, 1, 1)); // ends after the credits
        bad.add(words(XID, 1, 1, 0, 1)); // a Read list entry cut short
        bad.add(words(XID, 1, 1, 5)); // unknown rdma_proc
        bad.add(words(XID, 1, 1, 0x8000_0000));
        bad.add(HostBridge.header(new RdmaMsgp(XID, 1, 4096, 4096, ChunkLists.NONE))); // retired RDMA_MSGP
        bad.add(HostBridge.header(new RdmaDone(XID, 1))); // dropped
        bad.add(HostBridge.header(new RdmaError.ChunkError(XID, 1))); // errors are never answered
        bad.add(new byte[] {1, 2, 3}); // too short for a version: dropped
        bad.add(words(XID, 1, 1, 0, 0, 1, 0x7fff_ffff, 0, 0)); // a Write chunk of 2^31-1 segments
        bad.add(HostBridge.concat(words(XID, 1, 1, 0, 0, 0, 1, 65), new byte[65 * 16])); // 65 Reply segments
        RdmaSegment huge = new RdmaSegment(1, HeaderLimits.DEFAULT.maxSegmentLength() + 1, 0);
        bad.add(HostBridge.concat(
                HostBridge.header(
                        new RdmaMsg(XID, 1, new ChunkLists(List.of(), List.of(WriteChunk.of(huge)), Optional.empty()))),
                words(XID, 0, 2, 1, 1, 0, 0, 0, 0, 0)));
        // Read positions out of order, and beyond the message
        bad.add(HostBridge.concat(
                HostBridge.header(new RdmaMsg(
                        XID,
                        1,
                        new ChunkLists(
                                List.of(
                                        new ReadSegment(40, new RdmaSegment(1, 8, 0)),
                                        new ReadSegment(36, new RdmaSegment(2, 8, 0))),
                                List.of(),
                                Optional.empty()))),
                new byte[40]));
        bad.add(HostBridge.concat(
                HostBridge.header(new RdmaMsg(
                        XID,
                        1,
                        new ChunkLists(
                                List.of(new ReadSegment(400, new RdmaSegment(1, 8, 0))), List.of(), Optional.empty()))),
                new byte[40]));
        bad.add(HostBridge.header(new org.panamardma.rpcrdma.RdmaNoMsg(XID, 1, ChunkLists.NONE))); // NOMSG, no call
        return bad;
    }

    @Test
    void badTransportHeadersAreAnsweredExactlyAsTheServerAnswersThemForItsOwnDispatcher() throws IOException {
        DemoService demo = new DemoService(files, Duration.ZERO);
        try (OncRpcBridge bridge = new OncRpcBridge(
                Map.of(DemoService.PROGRAM, demo),
                null,
                c -> {},
                false,
                Duration.ofSeconds(5),
                new FileChunkMemory(1 << 20, Duration.ZERO))) {
            HostBridge viaBridge = new HostBridge(bridge);
            HostBridge viaDispatcher = new HostBridge(RpcDispatcher.builder().build());
            int answered = 0;
            for (byte[] message : badHeaders()) {
                HostBridge.Answer a = viaBridge.send(message);
                HostBridge.Answer b = viaDispatcher.send(message);
                assertEquals(
                        b.outcome(),
                        a.outcome(),
                        "outcome of " + java.util.HexFormat.of().formatHex(message));
                assertEquals(b.header(), a.header());
                assertTrue(
                        a.outcome().path() == ReplyPath.ERR_VERS
                                || a.outcome().path() == ReplyPath.ERR_CHUNK
                                || a.outcome().path() == ReplyPath.DROPPED,
                        "refused by the transport: " + a.outcome());
                if (a.outcome().path() != ReplyPath.DROPPED) {
                    answered++;
                }
            }
            assertEquals(12, answered, "ERR_VERS or ERR_CHUNK, the rest dropped");
            assertEquals(0, demo.calls.get(), "no bad header reached the program");
        }
    }

    /** A file chunk counting its releases. */
    static class CountedChunk implements FileChunk {
        final byte[] data;
        int position;
        int released;

        CountedChunk(byte[] data) {
            this.data = data;
        }

        @Override
        public long writeTo(WritableByteChannel channel) throws IOException {
            int n = channel.write(java.nio.ByteBuffer.wrap(data, position, Math.min(1000, data.length - position)));
            position += n;
            return n;
        }

        @Override
        public boolean hasRemaining() {
            return position < data.length;
        }

        @Override
        public int remaining() {
            return data.length - position;
        }

        @Override
        public boolean release() {
            released++;
            return true;
        }

        @Override
        public boolean isExternal() {
            return true;
        }
    }

    /** An encoder whose placement takes every eligible item and records it. */
    static final class Recording implements DataPlacement {
        final List<byte[]> placed = new ArrayList<>();

        @Override
        public boolean placeDirectly(long streamPosition, MemorySegment data) {
            placed.add(data.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            return true;
        }
    }

    private static Buffer detach(Xdr xdr, CountedChunk[] chunk) {
        WritableMessage[] parts = xdr.asBufferWritableMessages();
        chunk[0] = parts.length > 1 ? (CountedChunk) parts[1] : null;
        return (Buffer) parts[0];
    }

    @Test
    void aFileChunkEndingTheReplyIsEligibleAndReleased() throws Exception {
        byte[] data = DemoFiles.pattern(2503);
        Xdr xdr = new Xdr(64);
        xdr.beginEncoding();
        xdr.xdrEncodeInt(7);
        xdr.xdrEncodeFileChunk(new CountedChunk(data));
        xdr.endEncoding();
        CountedChunk[] chunk = new CountedChunk[1];
        Buffer head = detach(xdr, chunk);
        Recording placement = new Recording();
        byte[] out = new byte[64];
        XdrEncoder encoder = new XdrEncoder(MemorySegment.ofArray(out), 0, placement);
        long size = ReplyEncoding.encode(head, chunk[0], encoder, new FileChunkMemory(1 << 20, Duration.ZERO));
        assertEquals(8 + 2504, size, "the full stream: the word, the length, the data and its roundup");
        assertEquals(8, encoder.position(), "inline: the word and the length word only");
        assertArrayEquals(words(7, 2503), java.util.Arrays.copyOf(out, 8));
        assertEquals(1, placement.placed.size());
        assertArrayEquals(data, placement.placed.get(0));
        assertEquals(1, chunk[0].released, "released once");
    }

    @Test
    void aFileChunkWithMoreEncodedAfterItGoesAsTcpWouldSendItAllInline() throws Exception {
        byte[] data = DemoFiles.pattern(10);
        Xdr xdr = new Xdr(64);
        xdr.beginEncoding();
        xdr.xdrEncodeFileChunk(new CountedChunk(data));
        xdr.xdrEncodeInt(0x1234); // oncrpc4j puts this before the file's data on the wire
        xdr.endEncoding();
        CountedChunk[] chunk = new CountedChunk[1];
        Buffer head = detach(xdr, chunk);
        Recording placement = new Recording();
        byte[] out = new byte[64];
        XdrEncoder encoder = new XdrEncoder(MemorySegment.ofArray(out), 0, placement);
        ReplyEncoding.encode(head, chunk[0], encoder, new FileChunkMemory(1 << 20, Duration.ZERO));
        assertTrue(placement.placed.isEmpty(), "nothing placed: the data is not an XDR item of its own");
        assertArrayEquals(HostBridge.concat(words(10, 0x1234), data, new byte[2]), java.util.Arrays.copyOf(out, (int)
                encoder.position()));
        assertEquals(1, chunk[0].released);
    }

    @Test
    void aFileChunkShorterThanItSaysIsAnIoErrorAndReleased() {
        CountedChunk liar = new CountedChunk(new byte[100]) {
            @Override
            public long writeTo(WritableByteChannel channel) {
                return 0; // the file ended early
            }
        };
        Buffer head = Buffers.wrap(GrizzlyMemoryManager.getDefaultMemoryManager(), words(100));
        XdrEncoder encoder = new XdrEncoder(MemorySegment.ofArray(new byte[256]));
        IOException e = assertThrows(
                IOException.class,
                () -> ReplyEncoding.encode(head, liar, encoder, new FileChunkMemory(1 << 20, Duration.ZERO)));
        assertTrue(e.getMessage().contains("ended after 0 of 100"), e.getMessage());
        assertEquals(0, encoder.position(), "nothing written");
        assertEquals(1, liar.released);
    }

    @Test
    void aReplyOfShallowBuffersIsCopiedWhole() throws Exception {
        Xdr xdr = new Xdr(16);
        xdr.beginEncoding();
        xdr.xdrEncodeInt(1);
        byte[] shallow = DemoFiles.pattern(40_001);
        xdr.xdrEncodeShallowByteBuffer(java.nio.ByteBuffer.wrap(shallow));
        xdr.xdrEncodeInt(2);
        xdr.endEncoding();
        CountedChunk[] none = new CountedChunk[1];
        Buffer head = detach(xdr, none);
        assertFalse(head.hasArray(), "a composite of the Xdr's buffer and the shallow one");
        byte[] out = new byte[50_000];
        XdrEncoder encoder = new XdrEncoder(MemorySegment.ofArray(out));
        ReplyEncoding.encode(head, null, encoder, new FileChunkMemory(0, Duration.ZERO));
        assertArrayEquals(
                HostBridge.concat(words(1, 40_001), shallow, new byte[3], words(2)),
                java.util.Arrays.copyOf(out, (int) encoder.position()));
    }

    @Test
    void theBuilderRefusesWhatCannotWork() {
        assertThrows(
                IllegalStateException.class,
                () -> new OncRpcRdmaSvcBuilder()
                        .withRpcService(DemoService.PROGRAM, new DemoService(files, Duration.ZERO))
                        .build(),
                "no port: an RDMA listener cannot tell which port rdma_cm chose");
        assertThrows(IllegalArgumentException.class, () -> new OncRpcRdmaSvcBuilder().withPort(0));
        assertThrows(IllegalArgumentException.class, () -> new OncRpcRdmaSvcBuilder().withCredits(0));
        assertThrows(IllegalArgumentException.class, () -> new OncRpcRdmaSvcBuilder().withReplyTimeout(Duration.ZERO));
        assertThrows(
                IllegalArgumentException.class,
                () -> new OncRpcRdmaSvcBuilder().withFileChunkMemory(-1, Duration.ZERO));
        OncRpcRdmaSvc svc = new OncRpcRdmaSvcBuilder()
                .withPort(20_050)
                .withRpcService(DemoService.PROGRAM, new DemoService(files, Duration.ZERO))
                .build();
        assertThrows(IllegalStateException.class, svc::getInetSocketAddress, "not started");
        svc.stop(); // stopping one never started is harmless
    }
}
