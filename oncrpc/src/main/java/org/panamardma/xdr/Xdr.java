package org.panamardma.xdr;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * XDR sizes computed ahead of encoding, for buffer sizing and for the inline-versus-chunk decisions of
 * RPC-over-RDMA, where a message's encoded length decides how it travels.
 *
 * <p>All XDR items occupy a multiple of {@value #UNIT} bytes (RFC 4506 section 3): variable-length data is padded
 * with zero bytes to the next unit boundary.
 */
public final class Xdr {
    /** The XDR basic block size in bytes (RFC 4506 section 3). */
    public static final int UNIT = 4;
    /** Encoded size of int, unsigned int, enum and bool (RFC 4506 sections 4.1-4.4). */
    public static final int INT_SIZE = 4;
    /** Encoded size of hyper and unsigned hyper (RFC 4506 section 4.5). */
    public static final int HYPER_SIZE = 8;
    /** Encoded size of float (RFC 4506 section 4.6). */
    public static final int FLOAT_SIZE = 4;
    /** Encoded size of double (RFC 4506 section 4.7). */
    public static final int DOUBLE_SIZE = 8;

    // The basic items as they lie in memory, for XdrEncoder and XdrDecoder: big-endian (RFC 4506 section 3) and
    // unaligned, since callers' segments (heap arrays, registered buffers at any offset) need not be 4-byte aligned.
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Xdr() {}

    /**
     * Rounds a byte length up to the XDR unit: every XDR item occupies a multiple of four bytes (RFC 4506 section 3).
     *
     * @param length a byte length, not negative
     * @return {@code length} rounded up to the next multiple of {@value #UNIT}
     * @throws IllegalArgumentException if {@code length} is negative
     * @throws ArithmeticException if the rounded length overflows a long
     */
    public static long roundUp(long length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        return Math.addExact(length, UNIT - 1) & ~(long) (UNIT - 1);
    }

    /**
     * Counts the zero bytes that pad variable-length data to the XDR unit (RFC 4506 sections 4.9, 4.10).
     *
     * @param length a byte length, not negative
     * @return how many zero bytes of padding follow {@code length} data bytes: 0 to 3
     * @throws IllegalArgumentException if {@code length} is negative
     */
    public static int padding(long length) {
        return (int) (roundUp(length) - length);
    }

    /**
     * {@return the size of {@code opaque[length]}: the data rounded up (RFC 4506 section 4.9)}
     *
     * @param length the declared fixed length n, not negative
     */
    public static long fixedOpaqueSize(long length) {
        return roundUp(length);
    }

    /**
     * {@return the size of {@code opaque<>} holding {@code length} bytes: a length word, then the data rounded up
     * (RFC 4506 section 4.10)}
     *
     * @param length the data bytes, not negative
     */
    public static long opaqueSize(long length) {
        return INT_SIZE + roundUp(length);
    }

    /**
     * {@return the size of {@code string<>} holding {@code value} encoded as UTF-8 (RFC 4506 section 4.11)}
     *
     * @param value the string; its size counts its UTF-8 bytes, not its chars
     */
    public static long stringSize(String value) {
        return opaqueSize(value.getBytes(StandardCharsets.UTF_8).length);
    }

    /**
     * {@return the size of a counted array of {@code count} elements of {@code elementSize} bytes each (RFC 4506
     * section 4.13)}
     *
     * @param count the element count, not negative
     * @param elementSize the encoded size of one element, in bytes
     * @throws ArithmeticException if the size overflows a long
     */
    public static long arraySize(long count, long elementSize) {
        return Math.addExact(INT_SIZE, Math.multiplyExact(count, elementSize));
    }

    /**
     * {@return the size of optional-data: the presence word, plus the item's size when present (RFC 4506 section
     * 4.19)}
     *
     * @param present whether the item is there (discriminant TRUE)
     * @param itemSize the item's encoded size in bytes; ignored when absent
     */
    public static long optionalSize(boolean present, long itemSize) {
        return present ? Math.addExact(INT_SIZE, itemSize) : INT_SIZE;
    }
}
