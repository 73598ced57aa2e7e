package org.panamardma.xdr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
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
public final class XdrEncoder {
    // Unaligned: callers' segments (heap arrays, registered buffers at any offset) need not be 4-byte aligned.
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private MemorySegment segment;
    private final DataPlacement placement;
    private final Growth growth;
    private long position;
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

    /** An encoder writing from offset 0 of {@code segment}, keeping everything inline. */
    public XdrEncoder(MemorySegment segment) {
        this(segment, 0, DataPlacement.INLINE);
    }

    /**
     * @param segment where to write
     * @param position the offset of the first byte to write
     * @param placement where eligible bulk data may go; {@link DataPlacement#INLINE} to keep all of it inline
     */
    public XdrEncoder(MemorySegment segment, long position, DataPlacement placement) {
        this(segment, position, placement, Growth.NONE);
    }

    /**
     * @param segment where to write first
     * @param position the offset of the first byte to write
     * @param placement where eligible bulk data may go
     * @param growth asked for a larger segment when an item does not fit; {@link #segment()} is then the new one
     */
    public XdrEncoder(MemorySegment segment, long position, DataPlacement placement, Growth growth) {
        this.segment = Objects.requireNonNull(segment, "segment");
        this.placement = Objects.requireNonNull(placement, "placement");
        this.growth = Objects.requireNonNull(growth, "growth");
        if (position < 0 || position > segment.byteSize()) {
            throw new IllegalArgumentException("position " + position + " outside segment of " + segment.byteSize());
        }
        this.position = position;
    }

    /** @return the offset in the segment of the next byte to be written */
    public long position() {
        return position;
    }

    /** @return the position in the full XDR stream: {@link #position()} plus the bytes placed out of band */
    public long streamPosition() {
        return position + elided;
    }

    /** @return bytes left in the segment */
    public long remaining() {
        return segment.byteSize() - position;
    }

    /** @return the segment this encoder writes into (the latest, if it grew) */
    public MemorySegment segment() {
        return segment;
    }

    /** @return the bytes written so far, from offset {@code from} to the current position (a view, not a copy) */
    public MemorySegment written(long from) {
        return segment.asSlice(from, position - from);
    }

    /** @return a mark for the current position */
    public Mark mark() {
        return new Mark(position, elided);
    }

    /**
     * Rewinds to {@code mark}, discarding what was written after it, and tells the {@link DataPlacement} to forget
     * items placed after it.
     */
    public void reset(Mark mark) {
        if (mark.position() > position || mark.position() < 0) {
            throw new IllegalArgumentException("cannot reset forward, to " + mark.position() + " from " + position);
        }
        position = mark.position();
        elided = mark.elided();
        placement.discardFrom(streamPosition());
    }

    private void require(long bytes, String what) {
        if (bytes > remaining() && !grow(position + bytes)) {
            throw new XdrException(
                    XdrException.Reason.NO_SPACE,
                    position,
                    what + " needs " + bytes + " bytes, " + remaining() + " left");
        }
    }

    /** Encodes an XDR {@code int} (RFC 4506 section 4.1). */
    public XdrEncoder putInt(int value) {
        require(Xdr.INT_SIZE, "int");
        segment.set(INT, position, value);
        position += Xdr.INT_SIZE;
        return this;
    }

    /**
     * Encodes an XDR {@code unsigned int} (RFC 4506 section 4.2).
     *
     * @param value 0 to 2<sup>32</sup>-1
     */
    public XdrEncoder putUnsignedInt(long value) {
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new XdrException(XdrException.Reason.INVALID_VALUE, position, "unsigned int out of range: " + value);
        }
        return putInt((int) value);
    }

    /** Encodes an XDR {@code hyper} (RFC 4506 section 4.5). */
    public XdrEncoder putHyper(long value) {
        require(Xdr.HYPER_SIZE, "hyper");
        segment.set(LONG, position, value);
        position += Xdr.HYPER_SIZE;
        return this;
    }

    /**
     * Encodes an XDR {@code unsigned hyper} (RFC 4506 section 4.5). Java has no unsigned long: the 64 bits of
     * {@code value} are written as they are, so values above {@link Long#MAX_VALUE} are passed as negative longs
     * (as {@link Long#parseUnsignedLong} gives them).
     */
    public XdrEncoder putUnsignedHyper(long value) {
        return putHyper(value);
    }

    /** Encodes an XDR {@code bool}: 1 for true, 0 for false (RFC 4506 section 4.4). */
    public XdrEncoder putBoolean(boolean value) {
        return putInt(value ? 1 : 0);
    }

    /** Encodes an XDR {@code enum} value (RFC 4506 section 4.3): a signed 32-bit word. */
    public XdrEncoder putEnum(int value) {
        return putInt(value);
    }

    /** Encodes an XDR {@code float}: IEEE 754 single precision (RFC 4506 section 4.6). */
    public XdrEncoder putFloat(float value) {
        require(Xdr.FLOAT_SIZE, "float");
        segment.set(FLOAT, position, value);
        position += Xdr.FLOAT_SIZE;
        return this;
    }

    /** Encodes an XDR {@code double}: IEEE 754 double precision (RFC 4506 section 4.7). */
    public XdrEncoder putDouble(double value) {
        require(Xdr.DOUBLE_SIZE, "double");
        segment.set(DOUBLE, position, value);
        position += Xdr.DOUBLE_SIZE;
        return this;
    }

    /** Writes {@code count} zero bytes, 0 to 3: the padding after variable-length data (RFC 4506 section 4.9). */
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
     */
    public XdrEncoder putFixedOpaque(MemorySegment data, long expectedLength) {
        if (data.byteSize() != expectedLength) {
            throw new XdrException(
                    XdrException.Reason.LIMIT_EXCEEDED,
                    position,
                    "fixed opaque of " + expectedLength + " bytes given " + data.byteSize());
        }
        require(Xdr.roundUp(data.byteSize()), "opaque[" + expectedLength + "]");
        copyPadded(data);
        return this;
    }

    /** Encodes {@code opaque[n]} from a byte array whose length is n. */
    public XdrEncoder putFixedOpaque(byte[] data) {
        return putFixedOpaque(MemorySegment.ofArray(data), data.length);
    }

    /**
     * Encodes {@code opaque<max>} (RFC 4506 section 4.10): the length, the bytes, then zero padding.
     *
     * @param data the bytes, at most {@code maxLength}
     * @param maxLength the declared maximum; {@link Integer#MAX_VALUE} for {@code opaque<>}
     */
    public XdrEncoder putOpaque(MemorySegment data, int maxLength) {
        checkMax(data.byteSize(), maxLength, "opaque");
        require(Xdr.opaqueSize(data.byteSize()), "opaque<" + maxLength + "> of " + data.byteSize() + " bytes");
        putInt((int) data.byteSize());
        copyPadded(data);
        return this;
    }

    /** Encodes {@code opaque<max>} from a byte array. */
    public XdrEncoder putOpaque(byte[] data, int maxLength) {
        return putOpaque(MemorySegment.ofArray(data), maxLength);
    }

    /**
     * Encodes {@code opaque<max>} that the upper layer marks eligible for direct data placement (NFS READ and
     * WRITE payloads, for instance). The length word always stays inline; the data and its padding are written
     * only if this encoder's {@link DataPlacement} does not take them.
     *
     * @return {@code true} if the data was placed out of band
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
     */
    public XdrEncoder putString(String value, int maxLength) {
        return putOpaque(value.getBytes(StandardCharsets.UTF_8), maxLength);
    }

    /**
     * Encodes a counted array {@code T<max>} (RFC 4506 section 4.13): the element count, then each element.
     *
     * @param maxCount the declared maximum count
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
     */
    public <T> XdrEncoder putFixedArray(List<? extends T> values, int count, XdrWriter<? super T> writer) {
        if (values.size() != count) {
            throw new XdrException(
                    XdrException.Reason.LIMIT_EXCEEDED,
                    position,
                    "fixed array of " + count + " elements given " + values.size());
        }
        for (T value : values) {
            writer.write(this, value);
        }
        return this;
    }

    /** Encodes {@code int<max>}, a counted array of ints, without boxing. */
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
     */
    public <T> XdrEncoder putNullable(T value, XdrWriter<? super T> writer) {
        putBoolean(value != null);
        if (value != null) {
            writer.write(this, value);
        }
        return this;
    }

    /** Encodes optional-data from an {@link Optional}. */
    public <T> XdrEncoder putOptional(Optional<? extends T> value, XdrWriter<? super T> writer) {
        return putNullable(value.orElse(null), writer);
    }

    /** Encodes {@code value}: a shorthand that reads well in chains. */
    public XdrEncoder put(XdrEncodable value) {
        value.encodeTo(this);
        return this;
    }

    /**
     * Overwrites the 32-bit word at {@code offset}, already written: for length or marker words known only after
     * the data that follows them (a record mark, a chunk length).
     */
    public XdrEncoder patchInt(long offset, int value) {
        if (offset < 0 || offset > position - Xdr.INT_SIZE) {
            throw new IllegalArgumentException(
                    "offset " + offset + " is not a written word (position " + position + ")");
        }
        segment.set(INT, offset, value);
        return this;
    }

    private boolean grow(long needed) {
        MemorySegment larger = growth.grow(segment, position, needed);
        if (larger == null) {
            return false;
        }
        if (larger.byteSize() < needed) {
            throw new IllegalStateException("growth gave " + larger.byteSize() + " bytes, " + needed + " needed");
        }
        segment = larger;
        return true;
    }

    private void checkMax(long length, int max, String what) {
        if (length > max) {
            throw new XdrException(
                    XdrException.Reason.LIMIT_EXCEEDED,
                    position,
                    what + " of " + length + " exceeds its maximum " + max);
        }
    }

    private void copyPadded(MemorySegment data) {
        long length = data.byteSize();
        MemorySegment.copy(data, 0, segment, position, length);
        position += length;
        zeroFill(Xdr.padding(length));
    }

    private void zeroFill(int count) {
        // byte by byte rather than asSlice(..).fill(..): no slice object for at most three bytes
        for (int i = 0; i < count; i++) {
            segment.set(ValueLayout.JAVA_BYTE, position++, (byte) 0);
        }
    }
}
