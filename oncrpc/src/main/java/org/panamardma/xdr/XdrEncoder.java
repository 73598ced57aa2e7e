package org.panamardma.xdr;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Writes XDR (RFC 4506) into a caller-supplied {@link MemorySegment}: big-endian, every item a multiple of
 * {@value Xdr#UNIT} bytes, variable-length data padded with zeros.
 *
 * <p>The encoder owns no memory and allocates nothing per primitive: each put writes straight into the segment at
 * the current position and advances it. Every put checks the remaining space first and throws
 * {@link XdrException} ({@link XdrException.Reason#NO_SPACE}) without writing anything when the item does not fit,
 * so a failed put leaves the segment as it was at the item's start.
 *
 * <p>Items marked eligible for direct data placement ({@link #putEligibleOpaque}) are offered to the encoder's
 * {@link DataPlacement}; the encoder keeps count of the bytes so elided, so that {@link #streamPosition()} is the
 * position in the full XDR stream even when the segment holds only the reduced, inline part.
 *
 * <p>Not thread-safe; one encoder per message.
 */
public final class XdrEncoder extends XdrSpace {
    // This class is RFC 4506's types, their limits and direct placement; the segment, the position and growing it are
    // XdrSpace's (a superclass, so that an encoder stays one object).
    private final DataPlacement placement;
    private long elided;

    /**
     * Gives an encoder more room when an item does not fit: lets a reply be encoded into a small buffer first and
     * grow only as far as it really needs (a server then allocates for a reply what the reply takes, not what the
     * client declared it could receive).
     */
    @FunctionalInterface
    public interface Growth {
        /** Never grows: an item that does not fit fails with {@link XdrException.Reason#NO_SPACE}. */
        Growth NONE = (current, used, needed) -> null;

        /**
         * Gives the encoder a segment large enough for the item that did not fit. Called on the encoder's thread; the
         * old segment stays the caller's to free (the encoder drops its reference to it).
         *
         * @param current the segment written so far
         * @param used the bytes of {@code current} written (to be carried over)
         * @param needed the least size the new segment must have
         * @return a segment of at least {@code needed} bytes whose first {@code used} bytes are those of
         *         {@code current}, or null to refuse (the put then fails with NO_SPACE, writing nothing)
         */
        MemorySegment grow(MemorySegment current, long used, long needed);
    }

    /**
     * A point to return to with {@link #reset(Mark)}.
     *
     * @param position the segment position
     * @param elided the bytes moved out of band before that position
     */
    public record Mark(long position, long elided) {}

    /**
     * An encoder writing from offset 0 of {@code segment}, keeping everything inline.
     *
     * @param segment where to write; its size is the encoder's limit unless a {@link Growth} is given
     */
    public XdrEncoder(MemorySegment segment) {
        this(segment, 0, DataPlacement.INLINE);
    }

    /**
     * An encoder writing from {@code position} of {@code segment}, which it never grows. The caller owns the segment
     * and must keep it alive while the encoder is in use.
     *
     * @param segment where to write
     * @param position the offset of the first byte to write
     * @param placement where eligible bulk data may go; {@link DataPlacement#INLINE} to keep all of it inline
     */
    public XdrEncoder(MemorySegment segment, long position, DataPlacement placement) {
        this(segment, position, placement, Growth.NONE);
    }

    /**
     * An encoder that asks {@code growth} for a larger segment when an item does not fit.
     *
     * @param segment where to write first
     * @param position the offset of the first byte to write
     * @param placement where eligible bulk data may go
     * @param growth asked for a larger segment when an item does not fit; {@link #segment()} is then the new one
     */
    public XdrEncoder(MemorySegment segment, long position, DataPlacement placement, Growth growth) {
        super(segment, position, growth);
        this.placement = Objects.requireNonNull(placement, "placement");
    }

    /** {@return the position in the full XDR stream: {@link #position()} plus the bytes placed out of band} */
    public long streamPosition() {
        return position() + elided;
    }

    /** {@return a mark for the current position} */
    public Mark mark() {
        return new Mark(position(), elided);
    }

    /**
     * Rewinds to {@code mark}, discarding what was written after it, and tells the {@link DataPlacement} to forget
     * items placed after it.
     *
     * @param mark from an earlier {@link #mark()} of this encoder, not after the current position
     * @throws IllegalArgumentException if the mark lies after the current position
     */
    public void reset(Mark mark) {
        rewind(mark.position());
        elided = mark.elided();
        placement.discardFrom(streamPosition());
    }

    /**
     * Encodes an XDR {@code int} (RFC 4506 section 4.1).
     *
     * @param value any int, written as four big-endian bytes
     * @return this encoder
     * @throws XdrException {@link XdrException.Reason#NO_SPACE} if four bytes do not fit
     */
    public XdrEncoder putInt(int value) {
        require(Xdr.INT_SIZE, "int");
        writeInt(value);
        return this;
    }

    /**
     * Encodes an XDR {@code unsigned int} (RFC 4506 section 4.2).
     *
     * @param value 0 to 2<sup>32</sup>-1
     * @return this encoder
     * @throws XdrException {@link XdrException.Reason#INVALID_VALUE} if {@code value} is outside 0 to 2<sup>32</sup>-1
     */
    public XdrEncoder putUnsignedInt(long value) {
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new XdrException(
                    XdrException.Reason.INVALID_VALUE, position(), "unsigned int out of range: " + value);
        }
        return putInt((int) value);
    }

    /**
     * Encodes an XDR {@code hyper} (RFC 4506 section 4.5).
     *
     * @param value any long, written as eight big-endian bytes
     * @return this encoder
     * @throws XdrException {@link XdrException.Reason#NO_SPACE} if eight bytes do not fit
     */
    public XdrEncoder putHyper(long value) {
        require(Xdr.HYPER_SIZE, "hyper");
        writeLong(value);
        return this;
    }

    /**
     * Encodes an XDR {@code unsigned hyper} (RFC 4506 section 4.5). Java has no unsigned long: the 64 bits of
     * {@code value} are written as they are, so values above {@link Long#MAX_VALUE} are passed as negative longs
     * (as {@link Long#parseUnsignedLong} gives them).
     *
     * @param value the 64 bits to write
     * @return this encoder
     */
    public XdrEncoder putUnsignedHyper(long value) {
        return putHyper(value);
    }

    /**
     * Encodes an XDR {@code bool}: 1 for true, 0 for false (RFC 4506 section 4.4).
     *
     * @param value written as 1 or 0
     * @return this encoder
     */
    public XdrEncoder putBoolean(boolean value) {
        return putInt(value ? 1 : 0);
    }

    /**
     * Encodes an XDR {@code enum} value (RFC 4506 section 4.3): a signed 32-bit word.
     *
     * @param value the enum's declared value
     * @return this encoder
     */
    public XdrEncoder putEnum(int value) {
        return putInt(value);
    }

    /**
     * Encodes an XDR {@code float}: IEEE 754 single precision (RFC 4506 section 4.6).
     *
     * @param value any float, NaN and infinities included, written as its IEEE 754 bits
     * @return this encoder
     */
    public XdrEncoder putFloat(float value) {
        require(Xdr.FLOAT_SIZE, "float");
        writeFloat(value);
        return this;
    }

    /**
     * Encodes an XDR {@code double}: IEEE 754 double precision (RFC 4506 section 4.7).
     *
     * @param value any double, NaN and infinities included, written as its IEEE 754 bits
     * @return this encoder
     */
    public XdrEncoder putDouble(double value) {
        require(Xdr.DOUBLE_SIZE, "double");
        writeDouble(value);
        return this;
    }

    /**
     * Writes {@code count} zero bytes, 0 to 3: the padding after variable-length data (RFC 4506 section 4.9).
     *
     * @param count 0 to 3
     * @return this encoder
     * @throws IllegalArgumentException if {@code count} is outside 0 to 3
     */
    public XdrEncoder putPadding(int count) {
        if (count < 0 || count >= Xdr.UNIT) {
            throw new IllegalArgumentException("padding must be 0..3 bytes, not " + count);
        }
        require(count, "padding");
        zeroFill(count);
        return this;
    }

    /**
     * Encodes {@code opaque[n]} (RFC 4506 section 4.9): the bytes of {@code data}, then zero padding.
     *
     * @param data exactly {@code expectedLength} bytes
     * @param expectedLength the declared fixed length n
     * @return this encoder
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} if {@code data} is not {@code expectedLength}
     *        bytes long
     */
    public XdrEncoder putFixedOpaque(MemorySegment data, long expectedLength) {
        if (data.byteSize() != expectedLength) {
            throw new XdrException(
                    XdrException.Reason.LIMIT_EXCEEDED,
                    position(),
                    "fixed opaque of " + expectedLength + " bytes given " + data.byteSize());
        }
        require(Xdr.roundUp(data.byteSize()), "opaque[" + expectedLength + "]");
        copyPadded(data);
        return this;
    }

    /**
     * Encodes {@code opaque[n]} from a byte array whose length is n.
     *
     * @param data the bytes; its length is n
     * @return this encoder
     */
    public XdrEncoder putFixedOpaque(byte[] data) {
        return putFixedOpaque(MemorySegment.ofArray(data), data.length);
    }

    /**
     * Encodes {@code opaque<max>} (RFC 4506 section 4.10): the length, the bytes, then zero padding.
     *
     * @param data the bytes, at most {@code maxLength}
     * @param maxLength the declared maximum; {@link Integer#MAX_VALUE} for {@code opaque<>}
     * @return this encoder
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} if {@code data} is longer than {@code maxLength}
     */
    public XdrEncoder putOpaque(MemorySegment data, int maxLength) {
        checkMax(data.byteSize(), maxLength, "opaque");
        require(Xdr.opaqueSize(data.byteSize()), "opaque<" + maxLength + "> of " + data.byteSize() + " bytes");
        putInt((int) data.byteSize());
        copyPadded(data);
        return this;
    }

    /**
     * Encodes {@code opaque<max>} from a byte array.
     *
     * @param data the bytes, at most {@code maxLength}
     * @param maxLength the declared maximum
     * @return this encoder
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} if {@code data} is longer than {@code maxLength}
     */
    public XdrEncoder putOpaque(byte[] data, int maxLength) {
        return putOpaque(MemorySegment.ofArray(data), maxLength);
    }

    /**
     * Encodes {@code opaque<max>} that the upper layer marks eligible for direct data placement (NFS READ and
     * WRITE payloads, for instance). The length word always stays inline; the data and its padding are written
     * only if this encoder's {@link DataPlacement} does not take them.
     *
     * @param data the bytes, at most {@code maxLength}; if placed out of band, the placement keeps a reference to this
     *        segment, which the caller must keep alive until the message is sent
     * @param maxLength the declared maximum
     * @return {@code true} if the data was placed out of band
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} if {@code data} is longer than {@code maxLength}
     */
    public boolean putEligibleOpaque(MemorySegment data, int maxLength) {
        checkMax(data.byteSize(), maxLength, "opaque");
        putInt((int) data.byteSize());
        if (placement.placeDirectly(streamPosition(), data)) {
            // RFC 8166 section 3.4.5.2 and draft-ietf-nfsv4-rpcrdma-08 section 3.7: the roundup of a chunked
            // item is not in the reduced stream either, so the next inline item follows the length word.
            elided += Xdr.roundUp(data.byteSize());
            return true;
        }
        require(Xdr.roundUp(data.byteSize()), "opaque<" + maxLength + "> data of " + data.byteSize() + " bytes");
        copyPadded(data);
        return false;
    }

    /**
     * Encodes {@code string<max>} (RFC 4506 section 4.11) as UTF-8 bytes (XDR strings are ASCII by the RFC; UTF-8
     * is its superset and what NFSv4 uses).
     *
     * @param maxLength the declared maximum length in bytes
     * @param value the string; its UTF-8 bytes are written, not its chars
     * @return this encoder
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} if its UTF-8 encoding is longer than {@code
     *        maxLength}
     */
    public XdrEncoder putString(String value, int maxLength) {
        return putOpaque(value.getBytes(StandardCharsets.UTF_8), maxLength);
    }

    /**
     * Encodes a counted array {@code T<max>} (RFC 4506 section 4.13): the element count, then each element.
     *
     * @param maxCount the declared maximum count
     * @param <T> the element type
     * @param values the elements, at most {@code maxCount}
     * @param writer encodes one element
     * @return this encoder
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} if there are more than {@code maxCount} elements
     */
    public <T> XdrEncoder putArray(List<? extends T> values, int maxCount, XdrWriter<? super T> writer) {
        checkMax(values.size(), maxCount, "array");
        putInt(values.size());
        for (T value : values) {
            writer.write(this, value);
        }
        return this;
    }

    /**
     * Encodes a fixed-length array {@code T[n]} (RFC 4506 section 4.12): each element, no count.
     *
     * @param count the declared fixed count n
     * @param <T> the element type
     * @param values exactly {@code count} elements
     * @param writer encodes one element
     * @return this encoder
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} if {@code values} does not hold {@code count}
     *        elements
     */
    public <T> XdrEncoder putFixedArray(List<? extends T> values, int count, XdrWriter<? super T> writer) {
        if (values.size() != count) {
            throw new XdrException(
                    XdrException.Reason.LIMIT_EXCEEDED,
                    position(),
                    "fixed array of " + count + " elements given " + values.size());
        }
        for (T value : values) {
            writer.write(this, value);
        }
        return this;
    }

    /**
     * Encodes {@code int<max>}, a counted array of ints, without boxing.
     *
     * @param values the ints, at most {@code maxCount}
     * @param maxCount the declared maximum count
     * @return this encoder
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} if there are more than {@code maxCount} values
     */
    public XdrEncoder putIntArray(int[] values, int maxCount) {
        checkMax(values.length, maxCount, "int array");
        require(Xdr.arraySize(values.length, Xdr.INT_SIZE), "int<" + maxCount + "> of " + values.length);
        putInt(values.length);
        for (int value : values) {
            putInt(value);
        }
        return this;
    }

    /**
     * Encodes optional-data {@code T *name} (RFC 4506 section 4.19): FALSE, or TRUE then the value.
     *
     * @param value the value, or {@code null} for absent
     * @param <T> the value type
     * @param writer encodes the value when present
     * @return this encoder
     */
    public <T> XdrEncoder putNullable(T value, XdrWriter<? super T> writer) {
        putBoolean(value != null);
        if (value != null) {
            writer.write(this, value);
        }
        return this;
    }

    /**
     * Encodes optional-data from an {@link Optional}.
     *
     * @param <T> the value type
     * @param value the value, or empty for absent
     * @param writer encodes the value when present
     * @return this encoder
     */
    public <T> XdrEncoder putOptional(Optional<? extends T> value, XdrWriter<? super T> writer) {
        return putNullable(value.orElse(null), writer);
    }

    /**
     * Encodes {@code value}: a shorthand that reads well in chains.
     *
     * @param value encodes itself here
     * @return this encoder
     */
    public XdrEncoder put(XdrEncodable value) {
        value.encodeTo(this);
        return this;
    }

    /**
     * Overwrites the 32-bit word at {@code offset}, already written: for length or marker words known only after
     * the data that follows them (a record mark, a chunk length).
     *
     * @param offset the offset in the segment of a word already written (below {@link #position()} by at least four)
     * @param value the value to write there
     * @return this encoder
     * @throws IllegalArgumentException if the word at {@code offset} has not been written yet
     */
    public XdrEncoder patchInt(long offset, int value) {
        overwriteInt(offset, value);
        return this;
    }

    private void checkMax(long length, int max, String what) {
        if (length > max) {
            throw new XdrException(
                    XdrException.Reason.LIMIT_EXCEEDED,
                    position(),
                    what + " of " + length + " exceeds its maximum " + max);
        }
    }
}
