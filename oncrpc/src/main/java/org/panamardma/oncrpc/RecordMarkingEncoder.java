package org.panamardma.oncrpc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.panamardma.xdr.XdrException;

/**
 * Frames whole RPC messages as records for a byte stream (RFC 5531 section 11), splitting each into fragments of at
 * most a chosen size. Stateless and thread-safe.
 */
public final class RecordMarkingEncoder {
    private static final ValueLayout.OfInt HEADER = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final int maxFragmentLength;

    /**
     * An encoder splitting records into fragments of at most {@code maxFragmentLength} data bytes.
     *
     * @param maxFragmentLength the largest fragment data length to emit, 1 to 2<sup>31</sup>-1; a smaller value
     *                          bounds the buffer a receiver needs per fragment
     * @throws IllegalArgumentException if {@code maxFragmentLength} is not positive
     */
    public RecordMarkingEncoder(int maxFragmentLength) {
        if (maxFragmentLength < 1) {
            throw new IllegalArgumentException("fragment length must be positive, not " + maxFragmentLength);
        }
        this.maxFragmentLength = maxFragmentLength;
    }

    /** An encoder that emits each record as one fragment where it can. */
    public RecordMarkingEncoder() {
        this(RecordMarking.MAX_FRAGMENT_LENGTH);
    }

    /**
     * {@return how many bytes {@link #encode} writes for a record of {@code recordLength} bytes}
     *
     * @param recordLength the RPC message's length in bytes, not negative
     */
    public long framedSize(long recordLength) {
        long fragments = Math.max(1, (recordLength + maxFragmentLength - 1) / maxFragmentLength);
        return Math.addExact(recordLength, fragments * RecordMarking.HEADER_SIZE);
    }

    /**
     * Writes {@code record} as fragments, the last one marked; an empty record is one empty last fragment.
     *
     * @param record the whole RPC message
     * @param out where the framed bytes go
     * @param offset where in {@code out} to start
     * @return the number of bytes written, {@link #framedSize}{@code (record.byteSize())}
     * @throws XdrException {@link XdrException.Reason#NO_SPACE} if {@code out} cannot hold them; nothing is
     *                      written then
     */
    public long encode(MemorySegment record, MemorySegment out, long offset) {
        long total = framedSize(record.byteSize());
        if (offset < 0 || total > out.byteSize() - offset) {
            throw new XdrException(
                    XdrException.Reason.NO_SPACE,
                    offset,
                    "record of " + record.byteSize() + " bytes needs " + total + " framed, "
                            + Math.max(0, out.byteSize() - offset) + " left");
        }
        long at = offset;
        long sent = 0;
        do {
            int length = (int) Math.min(maxFragmentLength, record.byteSize() - sent);
            boolean last = sent + length == record.byteSize();
            out.set(HEADER, at, RecordMarking.header(last, length));
            at += RecordMarking.HEADER_SIZE;
            // fragment data is raw bytes, not an XDR opaque: no length word, no padding (RFC 5531 section 11)
            MemorySegment.copy(record, sent, out, at, length);
            at += length;
            sent += length;
        } while (sent < record.byteSize());
        return at - offset;
    }
}
