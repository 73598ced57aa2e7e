package org.panamardma.xdr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * The memory an {@link XdrEncoder} writes into: the segment, the offset of the next byte, and the
 * {@link XdrEncoder.Growth} asked for a larger segment when an item does not fit. This class checks space, grows and
 * copies bytes; what the bytes mean (RFC 4506's types, their limits, direct data placement) is the encoder's.
 *
 * <p>A superclass of the encoder rather than an object it holds, so that an encoder (one per message, on every call's
 * path) stays one allocation: the shape of {@code java.lang.AbstractStringBuilder} under {@code StringBuilder}.
 * Sealed: {@link XdrEncoder} is its only subclass.
 */
abstract sealed class XdrSpace permits XdrEncoder {
    private MemorySegment segment;
    private final XdrEncoder.Growth growth;
    private long position;

    XdrSpace(MemorySegment segment, long position, XdrEncoder.Growth growth) {
        this.segment = Objects.requireNonNull(segment, "segment");
        this.growth = Objects.requireNonNull(growth, "growth");
        if (position < 0 || position > segment.byteSize()) {
            throw new IllegalArgumentException("position " + position + " outside segment of " + segment.byteSize());
        }
        this.position = position;
    }

    /** {@return the offset in the segment of the next byte to be written} */
    public final long position() {
        return position;
    }

    /** {@return bytes left in the segment} */
    public final long remaining() {
        return segment.byteSize() - position;
    }

    /** {@return the segment this encoder writes into (the latest, if it grew)} */
    public final MemorySegment segment() {
        return segment;
    }

    /**
     * {@return the bytes written so far, from offset {@code from} to the current position (a view, not a copy)}
     *
     * @param from an offset already written, at most {@link #position()}
     */
    public final MemorySegment written(long from) {
        return segment.asSlice(from, position - from);
    }

    /**
     * Makes sure {@code bytes} more fit, growing the segment if a {@link XdrEncoder.Growth} gives room; else fails
     * before anything of the item is written, so a failed put leaves the segment as it was at the item's start.
     */
    final void require(long bytes, String what) {
        if (bytes > remaining() && !grow(position + bytes)) {
            throw new XdrException(
                    XdrException.Reason.NO_SPACE,
                    position,
                    what + " needs " + bytes + " bytes, " + remaining() + " left");
        }
    }

    // The writes below follow a require() that made room for them.

    final void writeInt(int value) {
        segment.set(Xdr.INT, position, value);
        position += Xdr.INT_SIZE;
    }

    final void writeLong(long value) {
        segment.set(Xdr.LONG, position, value);
        position += Xdr.HYPER_SIZE;
    }

    final void writeFloat(float value) {
        segment.set(Xdr.FLOAT, position, value);
        position += Xdr.FLOAT_SIZE;
    }

    final void writeDouble(double value) {
        segment.set(Xdr.DOUBLE, position, value);
        position += Xdr.DOUBLE_SIZE;
    }

    /** Copies {@code data}, then the zeros padding it to the XDR unit (RFC 4506 section 4.9). */
    final void copyPadded(MemorySegment data) {
        long length = data.byteSize();
        MemorySegment.copy(data, 0, segment, position, length);
        position += length;
        zeroFill(Xdr.padding(length));
    }

    final void zeroFill(int count) {
        // byte by byte rather than asSlice(..).fill(..): no slice object for at most three bytes
        for (int i = 0; i < count; i++) {
            segment.set(ValueLayout.JAVA_BYTE, position++, (byte) 0);
        }
    }

    /** Overwrites a word already written, leaving the position where it is. */
    final void overwriteInt(long offset, int value) {
        if (offset < 0 || offset > position - Xdr.INT_SIZE) {
            throw new IllegalArgumentException(
                    "offset " + offset + " is not a written word (position " + position + ")");
        }
        segment.set(Xdr.INT, offset, value);
    }

    /** Moves the position back to {@code to}, dropping what was written after it. */
    final void rewind(long to) {
        if (to > position || to < 0) {
            throw new IllegalArgumentException("cannot reset forward, to " + to + " from " + position);
        }
        position = to;
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
}
