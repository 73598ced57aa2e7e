package org.panamardma.xdr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.panamardma.testing.Bytes;

/** Property-style: random values of every type, encoded then decoded, with a fixed seed. */
class XdrRoundTripTest {
    private static final long SEED = 0x5EED_4506L;

    /** One randomly typed item: knows how to write itself, check a decode, and its expected XDR size. */
    private sealed interface Item {
        void write(XdrEncoder out);

        void check(XdrDecoder in);

        long size();
    }

    private record IntItem(int v) implements Item {
        public void write(XdrEncoder out) {
            out.putInt(v);
        }

        public void check(XdrDecoder in) {
            assertEquals(v, in.getInt());
        }

        public long size() {
            return Xdr.INT_SIZE;
        }
    }

    private record UIntItem(long v) implements Item {
        public void write(XdrEncoder out) {
            out.putUnsignedInt(v);
        }

        public void check(XdrDecoder in) {
            assertEquals(v, in.getUnsignedInt());
        }

        public long size() {
            return Xdr.INT_SIZE;
        }
    }

    private record HyperItem(long v) implements Item {
        public void write(XdrEncoder out) {
            out.putHyper(v);
        }

        public void check(XdrDecoder in) {
            assertEquals(v, in.getHyper());
        }

        public long size() {
            return Xdr.HYPER_SIZE;
        }
    }

    private record BoolItem(boolean v) implements Item {
        public void write(XdrEncoder out) {
            out.putBoolean(v);
        }

        public void check(XdrDecoder in) {
            assertEquals(v, in.getBoolean());
        }

        public long size() {
            return Xdr.INT_SIZE;
        }
    }

    private record DoubleItem(double v) implements Item {
        public void write(XdrEncoder out) {
            out.putDouble(v);
        }

        public void check(XdrDecoder in) {
            assertEquals(Double.doubleToRawLongBits(v), Double.doubleToRawLongBits(in.getDouble()));
        }

        public long size() {
            return Xdr.DOUBLE_SIZE;
        }
    }

    private record FloatItem(float v) implements Item {
        public void write(XdrEncoder out) {
            out.putFloat(v);
        }

        public void check(XdrDecoder in) {
            assertEquals(Float.floatToRawIntBits(v), Float.floatToRawIntBits(in.getFloat()));
        }

        public long size() {
            return Xdr.FLOAT_SIZE;
        }
    }

    private record OpaqueItem(byte[] v) implements Item {
        public void write(XdrEncoder out) {
            out.putOpaque(v, v.length);
        }

        public void check(XdrDecoder in) {
            assertArrayEquals(v, Bytes.of(in.getOpaque(v.length)));
        }

        public long size() {
            return Xdr.opaqueSize(v.length);
        }
    }

    private record FixedOpaqueItem(byte[] v) implements Item {
        public void write(XdrEncoder out) {
            out.putFixedOpaque(v);
        }

        public void check(XdrDecoder in) {
            assertArrayEquals(v, Bytes.of(in.getFixedOpaque(v.length)));
        }

        public long size() {
            return Xdr.fixedOpaqueSize(v.length);
        }
    }

    private record StringItem(String v) implements Item {
        public void write(XdrEncoder out) {
            out.putString(v, 1024);
        }

        public void check(XdrDecoder in) {
            assertEquals(v, in.getString(1024));
        }

        public long size() {
            return Xdr.stringSize(v);
        }
    }

    private record ArrayItem(List<Long> v) implements Item {
        public void write(XdrEncoder out) {
            out.putArray(v, 64, XdrEncoder::putHyper);
        }

        public void check(XdrDecoder in) {
            assertEquals(v, in.getArray(64, 8, XdrDecoder::getHyper));
        }

        public long size() {
            return Xdr.arraySize(v.size(), Xdr.HYPER_SIZE);
        }
    }

    private record OptionalItem(Optional<Integer> v) implements Item {
        public void write(XdrEncoder out) {
            out.putOptional(v, XdrEncoder::putInt);
        }

        public void check(XdrDecoder in) {
            assertEquals(v, in.getOptional(XdrDecoder::getInt));
        }

        public long size() {
            return Xdr.optionalSize(v.isPresent(), Xdr.INT_SIZE);
        }
    }

    private static Item randomItem(Random random) {
        return switch (random.nextInt(11)) {
            case 0 -> new IntItem(random.nextInt());
            case 1 -> new UIntItem(random.nextLong(0, 1L << 32));
            case 2 -> new HyperItem(random.nextLong());
            case 3 -> new BoolItem(random.nextBoolean());
            case 4 -> new DoubleItem(random.nextDouble() * 1e9 - 5e8);
            case 5 -> new FloatItem(random.nextFloat());
            case 6 -> new OpaqueItem(randomBytes(random, random.nextInt(0, 40)));
            case 7 -> new FixedOpaqueItem(randomBytes(random, random.nextInt(0, 40)));
            case 8 -> new StringItem(randomString(random));
            case 9 -> new ArrayItem(random.longs(random.nextInt(0, 10)).boxed().toList());
            default -> new OptionalItem(random.nextBoolean() ? Optional.of(random.nextInt()) : Optional.empty());
        };
    }

    private static byte[] randomBytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static String randomString(Random random) {
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(0, 20);
        for (int i = 0; i < length; i++) {
            // mostly ASCII, some two- and three-byte UTF-8
            int kind = random.nextInt(10);
            s.append((char)
                    (kind < 7
                            ? random.nextInt(0x20, 0x7F)
                            : kind < 9 ? random.nextInt(0xA0, 0x800) : random.nextInt(0x800, 0xD800)));
        }
        return s.toString();
    }

    @Test
    void randomSequencesRoundTripAndTakeTheirComputedSize() {
        Random random = new Random(SEED);
        for (int round = 0; round < 500; round++) {
            List<Item> items = new ArrayList<>();
            int count = random.nextInt(1, 20);
            long expectedSize = 0;
            for (int i = 0; i < count; i++) {
                Item item = randomItem(random);
                items.add(item);
                expectedSize += item.size();
            }
            MemorySegment buffer = MemorySegment.ofArray(new byte[(int) expectedSize + 16]);
            long start = random.nextInt(0, 16); // any start offset, aligned or not
            XdrEncoder out = new XdrEncoder(buffer, start, DataPlacement.INLINE);
            items.forEach(item -> item.write(out));
            assertEquals(
                    expectedSize, out.position() - start, "size computed ahead matches the encoding, round " + round);
            assertEquals(0, (out.position() - start) % Xdr.UNIT, "every item is a whole number of units");

            XdrDecoder in = new XdrDecoder(out.written(start));
            items.forEach(item -> item.check(in));
            assertTrue(in.atEnd(), "decoder consumed exactly what was encoded, round " + round);
        }
    }

    @Test
    void everyTruncationOfAnEncodingFailsWithXdrException() {
        Random random = new Random(SEED + 1);
        for (int round = 0; round < 100; round++) {
            List<Item> items = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                items.add(randomItem(random));
            }
            long size = items.stream().mapToLong(Item::size).sum();
            MemorySegment buffer = MemorySegment.ofArray(new byte[(int) size]);
            XdrEncoder out = new XdrEncoder(buffer);
            items.forEach(item -> item.write(out));
            for (long cut = 0; cut < size; cut++) {
                XdrDecoder in = new XdrDecoder(buffer.asSlice(0, cut));
                try {
                    items.forEach(item -> item.check(in));
                    throw new AssertionError("decoding " + cut + " of " + size + " bytes succeeded");
                } catch (XdrException expected) {
                    assertEquals(XdrException.Reason.TRUNCATED, expected.reason(), expected.getMessage());
                }
            }
        }
    }
}
