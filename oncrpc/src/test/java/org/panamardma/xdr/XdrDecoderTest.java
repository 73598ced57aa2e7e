package org.panamardma.xdr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.panamardma.testing.Bytes.words;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.panamardma.testing.Bytes;

class XdrDecoderTest {

    private static XdrDecoder decoder(byte[] bytes) {
        return new XdrDecoder(MemorySegment.ofArray(bytes));
    }

    private static XdrException fails(XdrException.Reason reason, long offset, Executable decode) {
        XdrException e = assertThrows(XdrException.class, decode);
        assertEquals(reason, e.reason(), e.getMessage());
        assertEquals(offset, e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("offset " + offset), e.getMessage());
        return e;
    }

    @Test
    void readsPrimitives() {
        XdrDecoder in = decoder(words(
                0xFFFFFFFE, 0xFFFFFFFE, 0x01234567, 0x89ABCDEF, 1, 0, 5, Float.floatToIntBits(-0.5f), 0x40090000, 0));
        assertEquals(-2, in.getInt());
        assertEquals(0xFFFF_FFFEL, in.getUnsignedInt());
        assertEquals(0x0123_4567_89AB_CDEFL, in.getHyper());
        assertTrue(in.getBoolean());
        assertFalse(in.getBoolean());
        assertEquals(5, in.getEnum());
        assertEquals(-0.5f, in.getFloat());
        assertEquals(3.125, in.getDouble());
        assertTrue(in.atEnd());
    }

    @Test
    void opaqueIsAZeroCopySliceOfTheSource() {
        byte[] bytes = {0, 0, 0, 3, 'a', 'b', 'c', 0, 0x11, 0x22, 0x33, 0x44};
        MemorySegment source = MemorySegment.ofArray(bytes);
        XdrDecoder in = new XdrDecoder(source);
        MemorySegment data = in.getOpaque(3);
        assertEquals(3, data.byteSize());
        assertArrayEquals(new byte[] {'a', 'b', 'c'}, Bytes.of(data));
        bytes[5] = 'X'; // the slice sees the source: no copy was made
        assertArrayEquals(new byte[] {'a', 'X', 'c'}, Bytes.of(data));
        assertEquals(8, in.position());
        assertEquals(0x11223344, in.getInt());
    }

    @Test
    void fixedOpaqueSkipsItsPadding() {
        XdrDecoder in = decoder(new byte[] {1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 9});
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, Bytes.of(in.getFixedOpaque(5)));
        assertEquals(9, in.getInt());
    }

    @Test
    void truncationIsReportedWithTheOffsetNeverAsIndexOutOfBounds() {
        fails(XdrException.Reason.TRUNCATED, 0, () -> decoder(new byte[3]).getInt());
        fails(XdrException.Reason.TRUNCATED, 4, () -> {
            XdrDecoder in = decoder(new byte[8]);
            in.getInt();
            in.getHyper();
        });
        // length 8 but only 4 data bytes follow
        fails(XdrException.Reason.TRUNCATED, 4, () -> decoder(words(8, 0)).getOpaque(100));
        // length 5 needs 8 bytes with padding; only 5 present
        fails(
                XdrException.Reason.TRUNCATED,
                4,
                () -> decoder(new byte[] {0, 0, 0, 5, 1, 2, 3, 4, 5}).getOpaque(100));
        fails(XdrException.Reason.TRUNCATED, 0, () -> decoder(new byte[2]).getDouble());
        fails(XdrException.Reason.TRUNCATED, 0, () -> decoder(new byte[0]).getFixedOpaque(1));
    }

    @Test
    void lengthsOverTheirMaximumAreRejectedBeforeReadingData() {
        XdrException e = fails(
                XdrException.Reason.LIMIT_EXCEEDED,
                0,
                () -> decoder(words(9, 0, 0)).getOpaque(8));
        assertTrue(e.getMessage().contains("9") && e.getMessage().contains("maximum 8"), e.getMessage());
        fails(
                XdrException.Reason.LIMIT_EXCEEDED,
                0,
                () -> decoder(words(4, 0x61626364)).getString(3));
        // a length with the top bit set is a huge unsigned value, not a negative one
        fails(
                XdrException.Reason.LIMIT_EXCEEDED,
                0,
                () -> decoder(words(0x80000000)).getOpaque(Integer.MAX_VALUE));
    }

    @Test
    void absurdArrayCountsFailBeforeAllocation() {
        // count 1_000_000 within the declared maximum, but the message cannot hold that many elements
        XdrException e = fails(
                XdrException.Reason.TRUNCATED,
                4,
                () -> decoder(words(1_000_000, 1, 2)).getArray(Integer.MAX_VALUE, XdrDecoder::getInt));
        assertTrue(e.getMessage().contains("1000000"), e.getMessage());
        fails(
                XdrException.Reason.LIMIT_EXCEEDED,
                0,
                () -> decoder(words(3, 1, 2, 3)).getArray(2, XdrDecoder::getInt));
        fails(
                XdrException.Reason.LIMIT_EXCEEDED,
                0,
                () -> decoder(words(3, 1, 2, 3)).getIntArray(2));
        fails(XdrException.Reason.TRUNCATED, 4, () -> decoder(words(0x7FFFFFFF)).getIntArray(Integer.MAX_VALUE));
        // elements of at least 16 bytes: 2 of them need 32 bytes, 24 are there
        fails(
                XdrException.Reason.TRUNCATED,
                4,
                () -> decoder(words(2, 0, 0, 0, 0, 0, 0)).getArray(10, 16, XdrDecoder::getHyper));
        fails(XdrException.Reason.TRUNCATED, 0, () -> decoder(new byte[12]).getFixedArray(2, 8, XdrDecoder::getHyper));
    }

    @Test
    void arraysAndOptionalsDecode() {
        XdrDecoder in = decoder(words(2, 10, 20, 7, 8, 1, 99, 0, 3, 4, 5, 6));
        assertEquals(List.of(10, 20), in.getArray(5, XdrDecoder::getInt));
        assertEquals(List.of(7, 8), in.getFixedArray(2, 4, XdrDecoder::getInt));
        assertEquals(Optional.of(99), in.getOptional(XdrDecoder::getInt));
        assertEquals(Optional.empty(), in.getOptional(XdrDecoder::getInt));
        assertArrayEquals(new int[] {4, 5, 6}, in.getIntArray(3));
        assertTrue(in.atEnd());
    }

    @Test
    void booleanOtherThanZeroOrOneIsInvalid() {
        fails(XdrException.Reason.INVALID_VALUE, 4, () -> {
            XdrDecoder in = decoder(words(1, 2));
            in.getBoolean();
            in.getBoolean();
        });
        // optional-data discriminants are booleans too
        fails(XdrException.Reason.INVALID_VALUE, 0, () -> decoder(words(7, 1)).getOptional(XdrDecoder::getInt));
    }

    enum Color {
        RED,
        GREEN
    }

    @Test
    void enumLookupRejectsUndeclaredValues() {
        XdrDecoder in = decoder(words(1, 2));
        assertEquals(
                Color.GREEN, in.getEnum(v -> v >= 0 && v < Color.values().length ? Color.values()[v] : null, "color"));
        XdrException e = fails(
                XdrException.Reason.INVALID_VALUE,
                4,
                () -> in.getEnum(v -> v >= 0 && v < Color.values().length ? Color.values()[v] : null, "color"));
        assertTrue(e.getMessage().contains("unknown color value 2"), e.getMessage());
    }

    @Test
    void nonZeroPaddingIsRejectedByDefaultAndToleratedOnRequest() {
        byte[] bytes = {0, 0, 0, 1, 'x', 0, 7, 0};
        XdrException e = fails(
                XdrException.Reason.NONZERO_PADDING, 6, () -> decoder(bytes).getOpaque(4));
        assertTrue(e.getMessage().contains("0x7"), e.getMessage());
        XdrDecoder tolerant = new XdrDecoder(MemorySegment.ofArray(bytes), PaddingPolicy.TOLERATE);
        assertArrayEquals(new byte[] {'x'}, Bytes.of(tolerant.getOpaque(4)));
        assertTrue(tolerant.atEnd());
    }

    @Test
    void invalidUtf8IsRejected() {
        fails(
                XdrException.Reason.INVALID_VALUE,
                0,
                () -> decoder(new byte[] {0, 0, 0, 1, (byte) 0xFF, 0, 0, 0}).getString(4));
    }

    @Test
    void skipAndRest() {
        XdrDecoder in = decoder(words(1, 2, 3));
        in.skip(4, "first");
        assertArrayEquals(words(2, 3), Bytes.of(in.rest()));
        assertEquals(4, in.position());
        fails(XdrException.Reason.TRUNCATED, 4, () -> in.skip(12, "too much"));
    }
}
