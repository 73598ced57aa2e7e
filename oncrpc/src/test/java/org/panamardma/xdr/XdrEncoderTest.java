package org.panamardma.xdr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.panamardma.testing.Bytes.words;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.panamardma.testing.Bytes;

class XdrEncoderTest {

    private static byte[] encode(int capacity, java.util.function.Consumer<XdrEncoder> body) {
        MemorySegment segment = MemorySegment.ofArray(new byte[capacity]);
        XdrEncoder out = new XdrEncoder(segment);
        body.accept(out);
        return Bytes.of(out.written(0));
    }

    @Test
    void integersAreBigEndianWords() {
        assertArrayEquals(
                words(0x01020304, 0xFFFFFFFF, 0x80000000),
                encode(12, out -> out.putInt(0x01020304).putInt(-1).putUnsignedInt(0x8000_0000L)));
    }

    @Test
    void hypersAreTwoWordsHighFirst() {
        assertArrayEquals(
                words(0x01234567, 0x89ABCDEF, 0xFFFFFFFF, 0xFFFFFFFE),
                encode(
                        16,
                        out -> out.putHyper(0x0123_4567_89AB_CDEFL)
                                .putUnsignedHyper(Long.parseUnsignedLong("18446744073709551614"))));
    }

    @Test
    void booleansAndEnumsAreWords() {
        assertArrayEquals(
                words(1, 0, 7),
                encode(12, out -> out.putBoolean(true).putBoolean(false).putEnum(7)));
    }

    @Test
    void floatsAreIeee754() {
        assertArrayEquals(
                words(Float.floatToIntBits(1.5f), (int) (Double.doubleToLongBits(-2.25) >>> 32), (int)
                        Double.doubleToLongBits(-2.25)),
                encode(12, out -> out.putFloat(1.5f).putDouble(-2.25)));
    }

    @Test
    void unsignedIntRejectsOutOfRange() {
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(new byte[8]));
        assertEquals(
                XdrException.Reason.INVALID_VALUE,
                assertThrows(XdrException.class, () -> out.putUnsignedInt(-1)).reason());
        assertThrows(XdrException.class, () -> out.putUnsignedInt(1L << 32));
        assertEquals(0, out.position());
    }

    @Test
    void variableOpaqueIsLengthDataAndZeroPadding() {
        // opaque<> of 5 bytes: length 5, 5 data bytes, 3 zero bytes (RFC 4506 section 4.10)
        assertArrayEquals(
                new byte[] {0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0},
                encode(12, out -> out.putOpaque(new byte[] {'h', 'e', 'l', 'l', 'o'}, 16)));
    }

    @Test
    void paddingOverwritesWhateverWasInTheBuffer() {
        byte[] dirty = new byte[8];
        java.util.Arrays.fill(dirty, (byte) 0x5A);
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(dirty));
        out.putFixedOpaque(new byte[] {1});
        assertArrayEquals(new byte[] {1, 0, 0, 0}, Bytes.of(out.written(0)));
    }

    @Test
    void fixedOpaqueHasNoLength() {
        assertArrayEquals(
                new byte[] {9, 8, 7, 6, 5, 4, 0, 0},
                encode(8, out -> out.putFixedOpaque(new byte[] {9, 8, 7, 6, 5, 4})));
    }

    @Test
    void fixedOpaqueOfWrongLengthIsRejected() {
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(new byte[16]));
        XdrException e =
                assertThrows(XdrException.class, () -> out.putFixedOpaque(MemorySegment.ofArray(new byte[3]), 4));
        assertEquals(XdrException.Reason.LIMIT_EXCEEDED, e.reason());
    }

    @Test
    void stringIsUtf8Opaque() {
        assertArrayEquals(
                new byte[] {0, 0, 0, 3, 'a', (byte) 0xC3, (byte) 0xA9, 0},
                encode(8, out -> out.putString("a\u00e9", 8)));
    }

    @Test
    void overMaximumLengthsAreRejected() {
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(new byte[64]));
        XdrException e = assertThrows(XdrException.class, () -> out.putString("toolong", 6));
        assertEquals(XdrException.Reason.LIMIT_EXCEEDED, e.reason());
        assertTrue(e.getMessage().contains("maximum 6"), e.getMessage());
        assertThrows(XdrException.class, () -> out.putArray(List.of(1, 2, 3), 2, XdrEncoder::putInt));
        assertThrows(XdrException.class, () -> out.putIntArray(new int[3], 2));
        assertEquals(0, out.position(), "nothing written by rejected puts");
    }

    @Test
    void arraysAreCountThenElements() {
        assertArrayEquals(
                words(3, 10, 20, 30), encode(16, out -> out.putArray(List.of(10, 20, 30), 5, XdrEncoder::putInt)));
        assertArrayEquals(words(2, 7, 8), encode(12, out -> out.putIntArray(new int[] {7, 8}, 2)));
        assertArrayEquals(words(10, 20), encode(8, out -> out.putFixedArray(List.of(10, 20), 2, XdrEncoder::putInt)));
        assertThrows(XdrException.class, () -> encode(8, out -> out.putFixedArray(List.of(10), 2, XdrEncoder::putInt)));
    }

    @Test
    void optionalIsDiscriminantThenValue() {
        assertArrayEquals(
                words(1, 42, 0),
                encode(
                        12,
                        out -> out.putNullable(42, XdrEncoder::putInt)
                                .putOptional(Optional.<Integer>empty(), XdrEncoder::putInt)));
    }

    @Test
    void noSpaceIsReportedWithOffsetAndNothingIsWritten() {
        byte[] buffer = new byte[6];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(buffer));
        out.putInt(1);
        XdrException e = assertThrows(XdrException.class, () -> out.putInt(2));
        assertEquals(XdrException.Reason.NO_SPACE, e.reason());
        assertEquals(4, e.offset());
        assertEquals(4, out.position());
        assertThrows(XdrException.class, () -> out.putOpaque(new byte[1], 10));
        assertThrows(XdrException.class, () -> out.putHyper(1));
        assertArrayEquals(new byte[] {0, 0, 0, 1, 0, 0}, buffer);
    }

    @Test
    void writesAtTheGivenStartPositionOfAnUnalignedNativeSegment() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(16).asSlice(1, 13);
            XdrEncoder out = new XdrEncoder(segment, 1, DataPlacement.INLINE);
            out.putInt(0x0A0B0C0D).putHyper(-2);
            assertEquals(13, out.position());
            assertArrayEquals(
                    new byte[] {0x0A, 0x0B, 0x0C, 0x0D, -1, -1, -1, -1, -1, -1, -1, -2}, Bytes.of(out.written(1)));
        }
    }

    @Test
    void patchIntRewritesAnEarlierWord() {
        assertArrayEquals(words(2, 7, 8), encode(12, out -> {
            long at = out.position();
            out.putInt(0).putInt(7).putInt(8);
            out.patchInt(at, 2);
        }));
    }

    @Test
    void resetRewindsAndTellsThePlacement() {
        List<Long> discarded = new ArrayList<>();
        DataPlacement placement = new DataPlacement() {
            @Override
            public boolean placeDirectly(long streamPosition, MemorySegment data) {
                return true;
            }

            @Override
            public void discardFrom(long streamPosition) {
                discarded.add(streamPosition);
            }
        };
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(new byte[32]), 0, placement);
        out.putInt(1);
        XdrEncoder.Mark mark = out.mark();
        out.putEligibleOpaque(MemorySegment.ofArray(new byte[10]), 100);
        assertEquals(8, out.position());
        assertEquals(8 + 12, out.streamPosition());
        out.reset(mark);
        assertEquals(4, out.position());
        assertEquals(4, out.streamPosition());
        assertEquals(List.of(4L), discarded);
    }

    @Test
    void eligibleOpaqueStaysInlineUnlessPlaced() {
        List<Long> positions = new ArrayList<>();
        DataPlacement placeLarge = (position, data) -> {
            positions.add(position);
            return data.byteSize() >= 8;
        };
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(new byte[64]), 0, placeLarge);
        out.putInt(0xAA);
        boolean smallPlaced = out.putEligibleOpaque(MemorySegment.ofArray(new byte[] {1, 2, 3}), 64);
        boolean largePlaced = out.putEligibleOpaque(MemorySegment.ofArray(new byte[9]), 64);
        out.putInt(0xBB);
        assertEquals(false, smallPlaced);
        assertEquals(true, largePlaced);
        // small: length at 4, data at 8..11; large: length at 12, data (elided, 12 bytes with roundup) at 16
        assertEquals(List.of(8L, 16L), positions);
        assertArrayEquals(words(0xAA, 3, 0x01020300, 9, 0xBB), Bytes.of(out.written(0)));
        assertEquals(20 + 12, out.streamPosition());
    }
}
