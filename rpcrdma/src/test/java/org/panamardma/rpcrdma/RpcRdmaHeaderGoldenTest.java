package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.panamardma.testing.Bytes.words;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.panamardma.testing.Bytes;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

class RpcRdmaHeaderGoldenTest {

    static Stream<GoldenHeaders.Golden> goldens() {
        return GoldenHeaders.all().stream();
    }

    static byte[] encode(RpcRdmaHeader header) {
        byte[] buffer = new byte[RpcRdmaHeaderEncoder.size(header)];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(buffer));
        RpcRdmaHeaderEncoder.encode(header, out);
        assertEquals(buffer.length, out.position(), "size() predicts the encoding");
        return buffer;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldens")
    void encodesToTheExactWords(GoldenHeaders.Golden golden) {
        byte[] expected = words(golden.words());
        byte[] actual = encode(golden.header());
        assertArrayEquals(expected, actual, "expected " + Bytes.hex(expected) + "\nactual   " + Bytes.hex(actual));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldens")
    void decodesFromTheExactWords(GoldenHeaders.Golden golden) throws RpcRdmaHeaderException {
        byte[] rpcMessage = {0x0D, (byte) 0xEF, 0, 1, 0, 0, 0, 0}; // what follows the header: left alone
        byte[] wire = new byte[golden.words().length * 4 + rpcMessage.length];
        System.arraycopy(words(golden.words()), 0, wire, 0, golden.words().length * 4);
        System.arraycopy(rpcMessage, 0, wire, golden.words().length * 4, rpcMessage.length);

        DecodedHeader decoded = new RpcRdmaHeaderDecoder().decode(MemorySegment.ofArray(wire));
        assertEquals(golden.header(), decoded.header());
        assertEquals(golden.words().length * 4, decoded.length());
        assertArrayEquals(rpcMessage, Bytes.of(decoded.rpcMessage(MemorySegment.ofArray(wire))));
    }

    @Test
    void goldenChunkListsGroupIntoOneReadChunkOfTwoSegments() {
        List<ReadChunk> chunks = GoldenHeaders.CHUNKS.readChunks();
        assertEquals(1, chunks.size());
        assertEquals(0x40, chunks.get(0).position());
        assertEquals(0x1000 + 0x0802, chunks.get(0).length());
        assertEquals(
                List.of(0x3000, 0x400),
                GoldenHeaders.CHUNKS.writeList().stream()
                        .map(WriteChunk::length)
                        .toList());
    }

    @Test
    void draftErrorDefaultArmDecodesWithItsExtraWords() throws RpcRdmaHeaderException {
        int[] draftForm = {
            7, // rdma_xid
            1, // rdma_vers
            5, // rdma_credit
            4, // rdma_proc RDMA_ERROR
            9, // rdma_err: neither ERR_VERS nor ERR_CHUNK
            1, 2, 3, 4, 5, 6, 7, 8, // uint32 rdma_extra[8] (draft section 4.3 default arm)
        };
        RdmaError.Unrecognized expected = new RdmaError.Unrecognized(7, 5, 9, List.of(1, 2, 3, 4, 5, 6, 7, 8));
        assertEquals(
                expected,
                new RpcRdmaHeaderDecoder()
                        .decode(MemorySegment.ofArray(words(draftForm)))
                        .header());
        // an RFC 8166-era peer may send an unknown code alone
        assertEquals(
                new RdmaError.Unrecognized(7, 5, 9, List.of()),
                new RpcRdmaHeaderDecoder()
                        .decode(MemorySegment.ofArray(words(7, 1, 5, 4, 9)))
                        .header());
        assertArrayEquals(words(draftForm), encode(expected));
    }

    @Test
    void encoderRefusesATooSmallBufferWithoutWriting() {
        byte[] buffer = new byte[20];
        XdrException e = assertThrows(
                XdrException.class,
                () -> RpcRdmaHeaderEncoder.encode(
                        new RdmaMsg(1, 1, GoldenHeaders.CHUNKS), new XdrEncoder(MemorySegment.ofArray(buffer))));
        assertEquals(XdrException.Reason.NO_SPACE, e.reason());
        assertArrayEquals(new byte[20], buffer);
    }
}
