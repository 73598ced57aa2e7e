package org.panamardma.xdr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * Reads XDR (RFC 4506) from a {@link MemorySegment}, zero-copy for opaque data: {@link #getOpaque} returns a
 * slice of the source segment, valid as long as the source is.
 *
 * <p>Every get checks, before touching memory, that the item lies within the segment and within its declared
 * maximum, and otherwise throws {@link XdrException} naming the item, the values and the offset, never an
 * {@link IndexOutOfBoundsException}. Counts read from the wire are checked against both the declared maximum and
 * the bytes left <em>before</em> anything proportional to them is allocated, so a hostile count cannot make the
 * decoder allocate more than the message itself could hold.
 *
 * <p>Not thread-safe; one decoder per message.
 */
public final class XdrDecoder {
    private final MemorySegment segment;
    private final PaddingPolicy paddingPolicy;
    private long position;

    /**
     * A decoder over all of {@code segment}, requiring zero padding.
     *
     * @param segment the XDR data; its size is the decoder's limit
     */
    public XdrDecoder(MemorySegment segment) {
        this(segment, PaddingPolicy.REQUIRE_ZERO);
    }

    /**
     * A decoder over all of {@code segment}. The decoder reads the segment in place and never copies or keeps more than
     * a reference: the caller owns the memory and must keep it alive (its arena open) while the decoder or any slice it
     * returned is in use.
     *
     * @param segment the XDR data; its size is the decoder's limit
     * @param paddingPolicy what to do with non-zero padding
     */
    public XdrDecoder(MemorySegment segment, PaddingPolicy paddingPolicy) {
        this.segment = Objects.requireNonNull(segment, "segment");
        this.paddingPolicy = Objects.requireNonNull(paddingPolicy, "paddingPolicy");
    }

    /** {@return the offset, from the start of the segment, of the next byte to be read} */
    public long position() {
        return position;
    }

    /** {@return bytes not yet read} */
    public long remaining() {
        return segment.byteSize() - position;
    }

    /** {@return whether all bytes have been read} */
    public boolean atEnd() {
        return position == segment.byteSize();
    }

    /** {@return the bytes not yet read, as a slice of the source (the position does not move)} */
    public MemorySegment rest() {
        return segment.asSlice(position);
    }

    /** {@return the padding policy of this decoder} */
    public PaddingPolicy paddingPolicy() {
        return paddingPolicy;
    }

    /**
     * Skips {@code bytes} bytes.
     *
     * @param bytes how many bytes to skip, not negative
     * @param what the item skipped, named in the error message
     * @return this decoder
     * @throws XdrException if fewer remain
     */
    public XdrDecoder skip(long bytes, String what) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative skip " + bytes);
        }
        require(bytes, what);
        position += bytes;
        return this;
    }

    private void require(long bytes, String what) {
        if (bytes > remaining()) {
            throw new XdrException(
                    XdrException.Reason.TRUNCATED,
                    position,
                    what + " needs " + bytes + " bytes, " + remaining() + " left");
        }
    }

    /**
     * Decodes an XDR {@code int} (RFC 4506 section 4.1).
     *
     * @return the signed 32-bit value
     * @throws XdrException {@link XdrException.Reason#TRUNCATED} if fewer than four bytes remain
     */
    public int getInt() {
        require(Xdr.INT_SIZE, "int");
        int value = segment.get(Xdr.INT, position);
        position += Xdr.INT_SIZE;
        return value;
    }

    /**
     * Decodes an XDR {@code int}, naming the field in any error.
     *
     * @param field the field's name, for the error message
     * @return the signed 32-bit value
     * @throws XdrException {@link XdrException.Reason#TRUNCATED} if fewer than four bytes remain
     */
    public int getInt(String field) {
        require(Xdr.INT_SIZE, field);
        return getInt();
    }

    /**
     * Decodes an XDR {@code unsigned int} (RFC 4506 section 4.2) into the range 0 to 2<sup>32</sup>-1.
     *
     * @return the value, 0 to 2<sup>32</sup>-1
     * @throws XdrException {@link XdrException.Reason#TRUNCATED} if fewer than four bytes remain
     */
    public long getUnsignedInt() {
        return Integer.toUnsignedLong(getInt());
    }

    /**
     * Decodes an XDR {@code unsigned int}, naming the field in any error.
     *
     * @param field the field's name, for the error message
     * @return the value, 0 to 2<sup>32</sup>-1
     * @throws XdrException {@link XdrException.Reason#TRUNCATED} if fewer than four bytes remain
     */
    public long getUnsignedInt(String field) {
        return Integer.toUnsignedLong(getInt(field));
    }

    /**
     * Decodes an XDR {@code hyper} (RFC 4506 section 4.5).
     *
     * @return the signed 64-bit value
     * @throws XdrException {@link XdrException.Reason#TRUNCATED} if fewer than eight bytes remain
     */
    public long getHyper() {
        require(Xdr.HYPER_SIZE, "hyper");
        long value = segment.get(Xdr.LONG, position);
        position += Xdr.HYPER_SIZE;
        return value;
    }

    /**
     * Decodes an XDR {@code unsigned hyper} (RFC 4506 section 4.5) as its 64 bits; values above
     * {@link Long#MAX_VALUE} come back negative: read them with {@link Long#toUnsignedString} or
     * {@link Long#compareUnsigned}.
     *
     * @return the 64 bits, as a signed long
     * @throws XdrException {@link XdrException.Reason#TRUNCATED} if fewer than eight bytes remain
     */
    public long getUnsignedHyper() {
        return getHyper();
    }

    /**
     * Decodes an XDR {@code bool} (RFC 4506 section 4.4).
     *
     * @return true for 1, false for 0
     * @throws XdrException {@link XdrException.Reason#INVALID_VALUE} for anything but 0 or 1
     */
    public boolean getBoolean() {
        long at = position;
        int value = getInt("bool");
        return switch (value) {
            case 0 -> false;
            case 1 -> true;
            default ->
                throw new XdrException(XdrException.Reason.INVALID_VALUE, at, "bool must be 0 or 1, is " + value);
        };
    }

    /**
     * Decodes an XDR {@code enum} (RFC 4506 section 4.3) as its raw value.
     *
     * @return the value, not checked against any declaration
     * @throws XdrException {@link XdrException.Reason#TRUNCATED} if fewer than four bytes remain
     */
    public int getEnum() {
        return getInt("enum");
    }

    /**
     * Decodes an XDR {@code enum} and maps it with {@code lookup}.
     *
     * @param <E> the Java type of the enum's constants
     * @param lookup returns the constant for a value, or {@code null} for a value the enum does not declare
     * @param type the enum's name, for the error message
     * @return the constant {@code lookup} gave for the value
     * @throws XdrException {@link XdrException.Reason#INVALID_VALUE} if {@code lookup} returns {@code null}
     */
    public <E> E getEnum(IntFunction<? extends E> lookup, String type) {
        long at = position;
        int value = getInt(type);
        E constant = lookup.apply(value);
        if (constant == null) {
            throw new XdrException(XdrException.Reason.INVALID_VALUE, at, "unknown " + type + " value " + value);
        }
        return constant;
    }

    /**
     * Decodes an XDR {@code float} (RFC 4506 section 4.6).
     *
     * @return the IEEE 754 single-precision value, NaN and infinities as sent
     * @throws XdrException {@link XdrException.Reason#TRUNCATED} if fewer than four bytes remain
     */
    public float getFloat() {
        require(Xdr.FLOAT_SIZE, "float");
        float value = segment.get(Xdr.FLOAT, position);
        position += Xdr.FLOAT_SIZE;
        return value;
    }

    /**
     * Decodes an XDR {@code double} (RFC 4506 section 4.7).
     *
     * @return the IEEE 754 double-precision value, NaN and infinities as sent
     * @throws XdrException {@link XdrException.Reason#TRUNCATED} if fewer than eight bytes remain
     */
    public double getDouble() {
        require(Xdr.DOUBLE_SIZE, "double");
        double value = segment.get(Xdr.DOUBLE, position);
        position += Xdr.DOUBLE_SIZE;
        return value;
    }

    /**
     * Decodes {@code opaque[length]} (RFC 4506 section 4.9) without copying.
     *
     * @param length the declared fixed length n, not negative
     * @return a slice of the source segment holding the {@code length} data bytes (padding excluded)
     * @throws XdrException if the data or its padding is truncated, or the padding is not zero under {@link
     *        PaddingPolicy#REQUIRE_ZERO}
     */
    public MemorySegment getFixedOpaque(long length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative fixed opaque length " + length);
        }
        return slicePadded(length, "opaque[" + length + "]");
    }

    /**
     * Decodes {@code opaque<maxLength>} (RFC 4506 section 4.10) without copying.
     *
     * @param maxLength the declared maximum; a larger length word is rejected before anything is read past it
     * @return a slice of the source segment holding the data bytes (padding excluded)
     * @throws XdrException if the length exceeds {@code maxLength} or the data is truncated
     */
    public MemorySegment getOpaque(int maxLength) {
        long length = getLength(maxLength, "opaque");
        return slicePadded(length, "opaque<" + maxLength + "> data");
    }

    /**
     * Decodes {@code opaque<maxLength>} into a new byte array (for small items kept beyond the message).
     *
     * @param maxLength the declared maximum; a larger length word is rejected before any allocation
     * @return a new array of the data bytes, owned by the caller
     * @throws XdrException if the length exceeds {@code maxLength} or the data is truncated
     */
    public byte[] getOpaqueBytes(int maxLength) {
        return getOpaque(maxLength).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * Decodes {@code string<maxLength>} (RFC 4506 section 4.11) as UTF-8.
     *
     * @param maxLength the declared maximum length in bytes
     * @return the decoded string
     * @throws XdrException {@link XdrException.Reason#INVALID_VALUE} if the bytes are not valid UTF-8
     */
    public String getString(int maxLength) {
        long at = position;
        MemorySegment bytes = getOpaque(maxLength);
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes.asByteBuffer())
                    .toString();
        } catch (CharacterCodingException e) {
            throw new XdrException(
                    XdrException.Reason.INVALID_VALUE, at, "string is not valid UTF-8: " + e.getMessage());
        }
    }

    /**
     * Decodes a counted array {@code T<maxCount>} (RFC 4506 section 4.13).
     *
     * @param <T> the element type
     * @param maxCount the declared maximum count
     * @param minElementSize the least number of bytes one element can occupy (at least {@value Xdr#UNIT}); a
     *                       count that the remaining bytes cannot hold is rejected before any allocation
     * @param reader decodes one element
     * @return an unmodifiable list
     * @throws XdrException if the count exceeds {@code maxCount} or the remaining bytes cannot hold it, or an element
     *        is malformed
     */
    public <T> List<T> getArray(int maxCount, int minElementSize, XdrReader<? extends T> reader) {
        int count = getCount(maxCount, minElementSize, "array");
        return readElements(count, reader);
    }

    /**
     * Decodes a counted array whose elements take at least {@value Xdr#UNIT} bytes each.
     *
     * @param <T> the element type
     * @param maxCount the declared maximum count
     * @param reader decodes one element
     * @return an unmodifiable list
     * @throws XdrException if the count exceeds {@code maxCount} or the remaining bytes cannot hold it, or an element
     *        is malformed
     */
    public <T> List<T> getArray(int maxCount, XdrReader<? extends T> reader) {
        return getArray(maxCount, Xdr.UNIT, reader);
    }

    /**
     * Decodes a fixed-length array {@code T[count]} (RFC 4506 section 4.12).
     *
     * @param <T> the element type
     * @param count the declared fixed count n
     * @param minElementSize as for {@link #getArray(int, int, XdrReader)}
     * @param reader decodes one element
     * @return an unmodifiable list of {@code count} elements
     * @throws XdrException if the remaining bytes cannot hold {@code count} elements or an element is malformed
     */
    public <T> List<T> getFixedArray(int count, int minElementSize, XdrReader<? extends T> reader) {
        if (count < 0) {
            throw new IllegalArgumentException("negative fixed array count " + count);
        }
        requireElements(count, minElementSize, "array[" + count + "]");
        return readElements(count, reader);
    }

    /**
     * Decodes {@code int<maxCount>} without boxing.
     *
     * @param maxCount the declared maximum count
     * @return a new array, owned by the caller
     * @throws XdrException if the count exceeds {@code maxCount} or the data is truncated
     */
    public int[] getIntArray(int maxCount) {
        int count = getCount(maxCount, Xdr.INT_SIZE, "int array");
        int[] values = new int[count];
        for (int i = 0; i < count; i++) {
            values[i] = getInt();
        }
        return values;
    }

    /**
     * Decodes optional-data {@code T *name} (RFC 4506 section 4.19).
     *
     * @param <T> the value type
     * @param reader decodes the value when present
     * @return the value, or empty if the discriminant is FALSE
     * @throws XdrException {@link XdrException.Reason#INVALID_VALUE} if the discriminant is neither 0 nor 1
     */
    public <T> Optional<T> getOptional(XdrReader<? extends T> reader) {
        return getBoolean() ? Optional.of(reader.read(this)) : Optional.empty();
    }

    /**
     * Decodes a length or count word and checks it against {@code max}.
     *
     * @param max the largest value the field allows (its declared maximum, or a bound the caller chose)
     * @param what the field, named in the error message
     * @return the value, 0 to {@code max}
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} if the value, read unsigned, is above {@code max}
     */
    public int getLength(int max, String what) {
        long at = position;
        long length = getUnsignedInt(what + " length");
        if (length > max) {
            throw new XdrException(
                    XdrException.Reason.LIMIT_EXCEEDED, at, what + " length " + length + " exceeds its maximum " + max);
        }
        return (int) length;
    }

    private int getCount(int maxCount, int minElementSize, String what) {
        long at = position;
        int count = getLength(maxCount, what + " count");
        position = at + Xdr.INT_SIZE;
        requireElements(count, minElementSize, what + " of " + count + " elements");
        return count;
    }

    private void requireElements(int count, int minElementSize, String what) {
        if (minElementSize < Xdr.UNIT) {
            throw new IllegalArgumentException("XDR elements take at least 4 bytes, not " + minElementSize);
        }
        require((long) count * minElementSize, what);
    }

    private <T> List<T> readElements(int count, XdrReader<? extends T> reader) {
        List<T> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(reader.read(this));
        }
        return Collections.unmodifiableList(values);
    }

    private MemorySegment slicePadded(long length, String what) {
        long padded = Xdr.roundUp(length);
        require(padded, what);
        MemorySegment data = segment.asSlice(position, length);
        long padAt = position + length;
        position += padded;
        if (paddingPolicy == PaddingPolicy.REQUIRE_ZERO) {
            for (long i = padAt; i < position; i++) {
                byte b = segment.get(ValueLayout.JAVA_BYTE, i);
                if (b != 0) {
                    throw new XdrException(
                            XdrException.Reason.NONZERO_PADDING,
                            i,
                            "padding byte after " + what + " is 0x" + Integer.toHexString(b & 0xFF));
                }
            }
        }
        return data;
    }
}
