package org.panamardma.xdr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.panamardma.testing.AllocationBudget;
import org.panamardma.testing.OpsAndData;

/**
 * Drives {@link XdrDecoder}'s getters in an order the fuzzer chooses (FUZZING.md). Input: byte 0 is the number
 * {@code n} of operation bytes, bytes 1..n the operations, the rest the XDR data. An operation byte's low 4 bits
 * pick the getter, its high 4 bits a parameter (a maximum, a count, an element size). The typed refusal is
 * {@link XdrException}, after which the message is abandoned as a real decoder would; anything else escaping (an
 * {@link IndexOutOfBoundsException} above all: the class promises every bound is checked first) is a finding, and
 * so is a position outside the data or a result over its declared maximum.
 */
class XdrDecoderFuzzTest {
    /**
     * Items are zero-copy slices, except the copies the getters promise: byte arrays, strings (a decoder, a char
     * buffer of 2 bytes per input byte, the string) and lists, whose counts are checked against the bytes left
     * before allocating (class javadoc): at most one boxed element (16 bytes) and one list slot per 4 data bytes,
     * so about 6 heap bytes per data byte; each op costs a few small objects (an Optional, a slice). Bounded here at
     * 32 per input byte, plus a constant for the one XdrException (stack trace, message).
     */
    private static long bound(int inputLength) {
        return (64 << 10) + 32L * inputLength;
    }

    private static final int[] MAXIMA = {
        0, 1, 3, 4, 7, 8, 16, 31, 64, 100, 255, 400, 1024, 4096, 65536, Integer.MAX_VALUE
    };

    @FuzzTest
    void getters(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        OpsAndData script = OpsAndData.of(input);
        byte[] ops = script.ops();
        MemorySegment data = MemorySegment.ofArray(script.data());
        for (PaddingPolicy policy : PaddingPolicy.values()) {
            AllocationBudget.within("XdrDecoder ops", bound(input.length), () -> run(ops, data, policy));
        }
    }

    private static void run(byte[] ops, MemorySegment data, PaddingPolicy policy) {
        XdrDecoder in = new XdrDecoder(data, policy);
        try {
            for (byte op : ops) {
                long before = in.position();
                apply(in, op & 0x0F, (op >> 4) & 0x0F);
                assertTrue(
                        in.position() >= before && in.position() <= data.byteSize(),
                        "position " + in.position() + " after op " + (op & 0xFF) + " from " + before);
                assertEquals(data.byteSize() - in.position(), in.remaining());
                assertEquals(in.position() == data.byteSize(), in.atEnd());
                assertEquals(in.remaining(), in.rest().byteSize());
            }
        } catch (XdrException refused) {
            assertTrue(refused.offset() >= 0 && refused.offset() <= data.byteSize(), refused.getMessage());
        }
    }

    private static void apply(XdrDecoder in, int op, int p) {
        int max = MAXIMA[p];
        switch (op) {
            case 0 -> in.getInt();
            case 1 -> in.getUnsignedInt("u");
            case 2 -> in.getHyper();
            case 3 -> in.getBoolean();
            case 4 -> in.getEnum(v -> v >= 0 && v <= p ? Integer.valueOf(v) : null, "e");
            case 5 -> {
                in.getFloat();
                in.getDouble();
            }
            case 6 -> assertTrue(in.getFixedOpaque(p * 3L).byteSize() == p * 3L);
            case 7 -> assertTrue(in.getOpaque(max).byteSize() <= max);
            case 8 -> assertTrue(in.getOpaqueBytes(max).length <= max);
            case 9 -> {
                String s = in.getString(max);
                assertTrue(s.length() <= max, "string of " + s.length() + " chars, max " + max);
            }
            case 10 -> {
                List<Integer> values = in.getArray(max, 4 + 4 * (p & 3), XdrDecoder::getInt);
                assertTrue(values.size() <= max);
            }
            case 11 -> assertTrue(in.getFixedArray(p, 4, d -> d.getOpaque(16)).size() == p);
            case 12 -> assertTrue(in.getIntArray(max).length <= max);
            case 13 -> in.getOptional(d -> d.getString(8));
            case 14 -> assertTrue(in.getLength(max, "len") <= max);
            default -> in.skip(p, "skip");
        }
    }
}
