package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.panamardma.testing.AllocationBudget;

/**
 * Fuzzes the transport header decoder (FUZZING.md) under the default limits and under tight ones, and the Read
 * list position check that follows it on the server. The typed refusal is {@link RpcRdmaHeaderException}; anything
 * else escaping is a finding. A header that decodes must re-encode to the very bytes it was read from (XDR is
 * canonical: one encoding per value) and its position check may only refuse with its typed exception.
 */
class RpcRdmaHeaderFuzzTest {
    private static final RpcRdmaHeaderDecoder DEFAULT = new RpcRdmaHeaderDecoder();
    private static final RpcRdmaHeaderDecoder TIGHT = new RpcRdmaHeaderDecoder(new HeaderLimits(2, 2, 2, 4096));

    /**
     * The decoder checks every count against the bytes left before allocating (class javadoc), so what it builds is
     * proportional to the input: per 16-24 input bytes of a segment, a segment record, a list slot and, for the
     * Read list, its grouping into chunks, under 100 bytes; about 5 heap bytes per input byte, bounded here at 32
     * per input byte (the re-encode adds one copy). The constant covers a refusal: the exception, its stack trace
     * and its message.
     */
    private static long bound(int inputLength) {
        return (64 << 10) + 32L * inputLength;
    }

    @FuzzTest
    void decode(byte[] data) throws Exception {
        MemorySegment message = MemorySegment.ofArray(data);
        for (RpcRdmaHeaderDecoder decoder : new RpcRdmaHeaderDecoder[] {DEFAULT, TIGHT}) {
            AllocationBudget.within("RpcRdmaHeaderDecoder.decode", bound(data.length), () -> {
                DecodedHeader decoded;
                try {
                    decoded = decoder.decode(message);
                } catch (RpcRdmaHeaderException refused) {
                    // what the server answers with: never a crash, ERR_VERS only for a version mismatch
                    refused.responderReply(1)
                            .ifPresent(reply -> assertTrue(
                                    refused.versionRecognized() || refused.fault() == HeaderFault.VERSION_MISMATCH,
                                    refused.getMessage()));
                    return;
                }
                checkDecoded(decoder, data, decoded);
            });
        }
    }

    private static void checkDecoded(RpcRdmaHeaderDecoder decoder, byte[] data, DecodedHeader decoded) {
        RpcRdmaHeader header = decoded.header();
        assertTrue(decoded.length() >= 16 && decoded.length() <= data.length, "header length " + decoded.length());
        assertEquals(decoded.length(), RpcRdmaHeaderEncoder.size(header), "decoded length vs encoded size");
        byte[] again = RpcRdmaHeaderEncoder.toBytes(header);
        assertArrayEquals(Arrays.copyOf(data, decoded.length()), again, "re-encoded header differs from the input");
        if (header instanceof RpcRdmaHeader.WithChunks withChunks) {
            ChunkLists chunks = withChunks.chunks();
            HeaderLimits limits = decoder.limits();
            assertTrue(chunks.readList().size() <= limits.maxReadSegments(), "read list over its limit");
            assertTrue(chunks.writeList().size() <= limits.maxWriteChunks(), "write list over its limit");
            chunks.writeList().forEach(w -> assertTrue(w.segments().size() <= limits.maxSegmentsPerChunk()));
            chunks.readChunks().forEach(c -> assertTrue(c.length() >= 0, "negative Read chunk length"));
            long inline = data.length - decoded.length();
            try {
                ReadListPositions.validate(header, header instanceof RdmaNoMsg ? 0 : inline);
            } catch (RpcRdmaHeaderException refused) {
                assertTrue(refused.versionRecognized(), "a position fault after a decoded header");
            }
        }
        decoded.rpcMessage(MemorySegment.ofArray(data)).toArray(ValueLayout.JAVA_BYTE);
    }
}
