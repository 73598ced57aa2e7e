package org.panamardma.oncrpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.panamardma.testing.Bytes;
import org.panamardma.xdr.XdrException;

class RecordMarkingTest {

    private static byte[] frame(RecordMarkingEncoder encoder, byte[] record) {
        byte[] out = new byte[(int) encoder.framedSize(record.length)];
        long written = encoder.encode(MemorySegment.ofArray(record), MemorySegment.ofArray(out), 0);
        assertEquals(out.length, written);
        return out;
    }

    @Test
    void singleFragmentHasTheLastBitAndLength() {
        assertArrayEquals(
                new byte[] {(byte) 0x80, 0, 0, 3, 'a', 'b', 'c'},
                frame(new RecordMarkingEncoder(), new byte[] {'a', 'b', 'c'}));
    }

    @Test
    void longRecordsAreSplitAndOnlyTheFinalFragmentIsMarked() {
        byte[] framed = frame(new RecordMarkingEncoder(4), new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        assertArrayEquals(
                new byte[] {0, 0, 0, 4, 1, 2, 3, 4, 0, 0, 0, 4, 5, 6, 7, 8, (byte) 0x80, 0, 0, 2, 9, 10}, framed);
        // an exact multiple does not end with an empty fragment
        assertArrayEquals(
                new byte[] {0, 0, 0, 2, 1, 2, (byte) 0x80, 0, 0, 2, 3, 4},
                frame(new RecordMarkingEncoder(2), new byte[] {1, 2, 3, 4}));
    }

    @Test
    void emptyRecordIsOneEmptyLastFragment() {
        assertArrayEquals(new byte[] {(byte) 0x80, 0, 0, 0}, frame(new RecordMarkingEncoder(), new byte[0]));
    }

    @Test
    void encoderRefusesTooSmallOutputWithoutWriting() {
        byte[] out = new byte[6];
        XdrException e = assertThrows(
                XdrException.class,
                () -> new RecordMarkingEncoder()
                        .encode(MemorySegment.ofArray(new byte[3]), MemorySegment.ofArray(out), 0));
        assertEquals(XdrException.Reason.NO_SPACE, e.reason());
        assertArrayEquals(new byte[6], out);
    }

    @Test
    void headerHelpers() {
        assertEquals(0x8000_0005, RecordMarking.header(true, 5));
        assertTrue(RecordMarking.isLast(0x8000_0005));
        assertFalse(RecordMarking.isLast(5));
        assertEquals(0x7FFF_FFFF, RecordMarking.length(0xFFFF_FFFF));
    }

    private static List<byte[]> collect(RecordMarkingDecoder decoder, byte[] stream, int... cuts) {
        List<byte[]> records = new ArrayList<>();
        int from = 0;
        for (int cut : cuts) {
            decoder.feed(MemorySegment.ofArray(stream).asSlice(from, cut - from), r -> records.add(Bytes.of(r)));
            from = cut;
        }
        decoder.feed(MemorySegment.ofArray(stream).asSlice(from), r -> records.add(Bytes.of(r)));
        return records;
    }

    @Test
    void decoderReassemblesWhateverTheReadBoundaries() {
        byte[] record = new byte[10];
        new Random(1).nextBytes(record);
        byte[] stream = frame(new RecordMarkingEncoder(3), record);
        for (int a = 0; a <= stream.length; a++) {
            for (int b = a; b <= stream.length; b++) {
                RecordMarkingDecoder decoder = new RecordMarkingDecoder(64);
                List<byte[]> records = collect(decoder, stream, a, b);
                assertEquals(1, records.size(), "cuts at " + a + ", " + b);
                assertArrayEquals(record, records.get(0));
                assertFalse(decoder.hasPartialRecord());
            }
        }
    }

    @Test
    void severalRecordsInOneReadAndOneByteReads() {
        RecordMarkingEncoder encoder = new RecordMarkingEncoder(5);
        byte[] one = frame(encoder, "first record".getBytes());
        byte[] two = frame(encoder, new byte[0]);
        byte[] three = frame(encoder, "3".getBytes());
        byte[] stream = new byte[one.length + two.length + three.length];
        System.arraycopy(one, 0, stream, 0, one.length);
        System.arraycopy(two, 0, stream, one.length, two.length);
        System.arraycopy(three, 0, stream, one.length + two.length, three.length);

        List<byte[]> together = collect(new RecordMarkingDecoder(100), stream);
        assertEquals(3, together.size());
        assertEquals("first record", new String(together.get(0)));
        assertEquals(0, together.get(1).length);
        assertEquals("3", new String(together.get(2)));

        RecordMarkingDecoder bytewise = new RecordMarkingDecoder(100);
        List<String> records = new ArrayList<>();
        for (int i = 0; i < stream.length; i++) {
            bytewise.feed(MemorySegment.ofArray(stream).asSlice(i, 1), r -> records.add(new String(Bytes.of(r))));
            assertEquals(i < stream.length - 1, bytewise.hasPartialRecord() || records.size() < 3);
        }
        assertEquals(List.of("first record", "", "3"), records);
    }

    @Test
    void oversizedRecordIsRefusedAtTheHeaderThatAnnouncesIt() {
        // fragments of 4 + 4 bytes, maximum 6: the second header (at stream offset 8) breaks the limit
        byte[] stream = frame(new RecordMarkingEncoder(4), new byte[8]);
        RecordMarkingDecoder decoder = new RecordMarkingDecoder(6);
        XdrException e = assertThrows(XdrException.class, () -> collect(decoder, stream));
        assertEquals(XdrException.Reason.LIMIT_EXCEEDED, e.reason());
        assertEquals(8, e.offset());
        assertTrue(e.getMessage().contains("maximum record size 6"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> decoder.feed(MemorySegment.ofArray(new byte[1]), r -> {}));

        // a single hostile header announcing 2 GiB is refused before anything is buffered
        RecordMarkingDecoder small = new RecordMarkingDecoder(1 << 20);
        assertThrows(
                XdrException.class,
                () -> small.feed(
                        MemorySegment.ofArray(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}),
                        r -> {}));
    }

    @Test
    void randomRecordsAndReadSizesRoundTrip() {
        Random random = new Random(0x5531);
        for (int round = 0; round < 200; round++) {
            RecordMarkingEncoder encoder = new RecordMarkingEncoder(random.nextInt(1, 50));
            List<byte[]> sent = new ArrayList<>();
            java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
            int count = random.nextInt(1, 6);
            for (int i = 0; i < count; i++) {
                byte[] record = new byte[random.nextInt(0, 200)];
                random.nextBytes(record);
                sent.add(record);
                stream.writeBytes(frame(encoder, record));
            }
            byte[] bytes = stream.toByteArray();
            RecordMarkingDecoder decoder = new RecordMarkingDecoder(200);
            List<byte[]> received = new ArrayList<>();
            int at = 0;
            while (at < bytes.length) {
                int n = Math.min(bytes.length - at, random.nextInt(1, 64));
                decoder.feed(MemorySegment.ofArray(bytes).asSlice(at, n), r -> received.add(Bytes.of(r)));
                at += n;
            }
            assertEquals(sent.size(), received.size(), "round " + round);
            for (int i = 0; i < sent.size(); i++) {
                assertArrayEquals(sent.get(i), received.get(i), "round " + round + " record " + i);
            }
        }
    }
}
