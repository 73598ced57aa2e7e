package org.panamardma.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.panamardma.testing.AllocationBudget;
import org.panamardma.xdr.XdrException;

/**
 * Fuzzes TCP record marking (RFC 5531 section 11; FUZZING.md). Input: byte 0 picks the maximum record size, byte 1
 * how the stream is cut into reads (its top bit: one read; else reads of 1 to 32 bytes), the rest is the stream.
 * The decoder's records and its refusal must match a whole-stream reference model; the typed refusal is
 * {@link XdrException} (LIMIT_EXCEEDED), after which further input is refused with IllegalStateException as
 * documented. Anything else escaping is a finding, and so is memory that follows announced lengths rather than
 * arriving bytes.
 */
class RecordMarkingFuzzTest {
    private static final int[] MAX_RECORD = {0, 4, 100, 255, 256, 1000, 4096, 1 << 20};

    /**
     * The record buffer starts at 256 bytes and doubles as data arrives, capped by the maximum record size, never
     * by an announced fragment length (class javadoc): all its generations add up to at most 256 + 4 bytes per byte
     * received. Each completed record is handed out as a slice (two small objects, under 100 bytes, per record of
     * at least a 4-byte header). Bounded at 64 KiB (a refusal) + 32 per input byte: a fragment header announcing
     * 2^31-1 bytes must cost nothing. The reads are sliced and the records fingerprinted without allocating, so
     * that only the decoder is measured.
     */
    private static long bound(int inputLength) {
        return (64 << 10) + 32L * inputLength;
    }

    @FuzzTest
    void feed(byte[] input) throws Exception {
        if (input.length < 2) {
            return;
        }
        int max = MAX_RECORD[input[0] & 7];
        int cut = input[1] & 0xFF;
        byte[] stream = Arrays.copyOfRange(input, 2, input.length);
        Reference expected = Reference.parse(stream, max);
        int step = (cut & 0x80) != 0 ? Math.max(1, stream.length) : 1 + (cut & 0x1F);
        List<MemorySegment> reads = new ArrayList<>();
        for (int at = 0; at < stream.length; at += step) {
            reads.add(MemorySegment.ofArray(stream).asSlice(at, Math.min(step, stream.length - at)));
        }
        long[] records = new long[stream.length / 4 + 1]; // each record takes at least a 4-byte header
        int[] count = {0};
        boolean[] failed = {false};
        RecordMarkingDecoder[] decoder = new RecordMarkingDecoder[1];
        java.util.function.Consumer<MemorySegment> collect = r -> {
            if (r.byteSize() > max) {
                throw new AssertionError("record of " + r.byteSize() + " bytes, max " + max);
            }
            records[count[0]++] = fingerprint(r);
        };
        AllocationBudget.within("RecordMarkingDecoder.feed", bound(input.length), () -> {
            count[0] = 0;
            failed[0] = false;
            decoder[0] = new RecordMarkingDecoder(max);
            for (MemorySegment read : reads) {
                try {
                    decoder[0].feed(read, collect);
                } catch (XdrException refused) {
                    if (refused.reason() != XdrException.Reason.LIMIT_EXCEEDED) {
                        throw refused;
                    }
                    failed[0] = true;
                    break;
                }
            }
        });
        assertEquals(
                expected.records, Arrays.stream(records, 0, count[0]).boxed().toList(), "records");
        assertEquals(expected.failed, failed[0], "refusal");
        if (failed[0]) {
            assertThrows(
                    IllegalStateException.class, () -> decoder[0].feed(MemorySegment.ofArray(new byte[1]), r -> {}));
        } else {
            assertEquals(expected.partial, decoder[0].hasPartialRecord(), "partial record at the end");
        }
    }

    /** A record's length and content as one long, computed without allocating. */
    private static long fingerprint(MemorySegment record) {
        long h = record.byteSize();
        for (long i = 0; i < record.byteSize(); i++) {
            h = h * 1_000_003L + record.get(ValueLayout.JAVA_BYTE, i);
        }
        return h;
    }

    /** The stream parsed at once, straight from RFC 5531 section 11. */
    private record Reference(List<Long> records, boolean failed, boolean partial) {
        static Reference parse(byte[] s, int max) {
            List<Long> records = new ArrayList<>();
            java.io.ByteArrayOutputStream record = new java.io.ByteArrayOutputStream();
            boolean open = false; // a fragment of the current record has been seen
            int at = 0;
            while (at < s.length) {
                if (s.length - at < 4) {
                    return new Reference(records, false, true);
                }
                int header = ((s[at] & 0xFF) << 24)
                        | ((s[at + 1] & 0xFF) << 16)
                        | ((s[at + 2] & 0xFF) << 8)
                        | (s[at + 3] & 0xFF);
                at += 4;
                open = true;
                long length = header & 0x7FFF_FFFFL;
                boolean last = header < 0;
                if (record.size() + length > max) {
                    return new Reference(records, true, true);
                }
                int take = (int) Math.min(length, s.length - at);
                record.write(s, at, take);
                at += take;
                if (take < length) {
                    return new Reference(records, false, true);
                }
                if (last) {
                    records.add(fingerprint(MemorySegment.ofArray(record.toByteArray())));
                    record.reset();
                    open = false;
                }
            }
            return new Reference(records, false, open);
        }
    }
}
