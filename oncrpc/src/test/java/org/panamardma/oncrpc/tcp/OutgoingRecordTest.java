package org.panamardma.oncrpc.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.RecordMarkingEncoder;
import org.panamardma.xdr.XdrEncoder;

/** Gathered records carry exactly the bytes of the same message encoded inline and framed as one fragment. */
class OutgoingRecordTest {

    private static byte[] gathered(Consumer<XdrEncoder> message) throws IOException {
        OutgoingRecord record = new OutgoingRecord(new byte[1024]);
        message.accept(record.encoder());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        record.writeTo(out);
        assertEquals(out.size() - 4, record.messageLength());
        return out.toByteArray();
    }

    private static byte[] inline(Consumer<XdrEncoder> message) {
        byte[] body = new byte[1 << 20];
        XdrEncoder encoder = new XdrEncoder(MemorySegment.ofArray(body));
        message.accept(encoder);
        MemorySegment written = encoder.written(0);
        RecordMarkingEncoder framing = new RecordMarkingEncoder();
        byte[] framed = new byte[(int) framing.framedSize(written.byteSize())];
        framing.encode(written, MemorySegment.ofArray(framed), 0);
        return framed;
    }

    @Test
    void eligibleItemsAreWrittenBetweenTheInlinePiecesWithTheirPadding() throws IOException {
        Random random = new Random(3);
        byte[] first = new byte[10_001]; // 3 bytes of padding
        byte[] small = new byte[5]; // under the gather threshold: copied inline
        random.nextBytes(first);
        random.nextBytes(small);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nativeData = arena.allocate(70_002); // off-heap source
            for (long i = 0; i < nativeData.byteSize(); i++) {
                nativeData.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
            }
            Consumer<XdrEncoder> message = out -> {
                out.putInt(1).putEligibleOpaque(MemorySegment.ofArray(first), Integer.MAX_VALUE);
                out.putInt(2).putEligibleOpaque(MemorySegment.ofArray(small), Integer.MAX_VALUE);
                out.putEligibleOpaque(nativeData, Integer.MAX_VALUE);
                out.putString("end", 8);
            };
            assertArrayEquals(inline(message), gathered(message));
        }
    }

    @Test
    void rewindingForgetsItemsPlacedAfterTheMark() throws IOException {
        byte[] big = new byte[20_000];
        new Random(4).nextBytes(big);
        Consumer<XdrEncoder> withdrawn = out -> {
            out.putInt(7);
            XdrEncoder.Mark mark = out.mark();
            out.putEligibleOpaque(MemorySegment.ofArray(big), Integer.MAX_VALUE);
            out.reset(mark);
            out.putInt(8);
        };
        assertArrayEquals(inline(out -> out.putInt(7).putInt(8)), gathered(withdrawn));
    }
}
