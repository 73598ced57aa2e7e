package org.panamardma.oncrpc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.function.Consumer;
import org.panamardma.xdr.XdrException;

/**
 * Reassembles records from a byte stream (RFC 5531 section 11), whatever the read boundaries: a fragment header or
 * fragment data may be split across any number of {@link #feed} calls, and one call may complete several records.
 *
 * <p>A record larger than the configured maximum is refused as soon as a fragment header announces it, before its
 * data is buffered, and memory grows only as data actually arrives, so a hostile length costs nothing. After such
 * an error the stream's framing cannot be trusted and the decoder refuses further input: close the connection.
 *
 * <p>Not thread-safe; one decoder per connection.
 */
public final class RecordMarkingDecoder {
    private final int maxRecordSize;
    private byte[] record = new byte[256];
    private int recordLength;
    private int headerBytes;
    private int header;
    private int fragmentRemaining;
    private boolean inFragment;
    private boolean lastFragment;
    private long streamOffset;
    private boolean failed;

    /**
     * A decoder for one connection. The largest record bounds what a peer can make it buffer: memory grows with the
     * data received, up to this size.
     *
     * @param maxRecordSize the largest record accepted, in bytes (data only, fragment headers excluded)
     * @throws IllegalArgumentException if {@code maxRecordSize} is negative
     */
    public RecordMarkingDecoder(int maxRecordSize) {
        if (maxRecordSize < 0) {
            throw new IllegalArgumentException("negative maximum record size " + maxRecordSize);
        }
        this.maxRecordSize = maxRecordSize;
    }

    /**
     * Consumes bytes read from the stream and hands each record completed by them to {@code records}.
     *
     * @param bytes the bytes just read
     * @param records receives each complete record; the segment is valid only during the call (the buffer is
     *                reused for the next record), so copy what must outlive it
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} if a record would exceed the maximum; the
     *                      offset is the stream offset of the fragment header
     * @throws IllegalStateException if called after such an error
     */
    public void feed(MemorySegment bytes, Consumer<? super MemorySegment> records) {
        if (failed) {
            throw new IllegalStateException("record stream already failed; its framing is lost");
        }
        long at = 0;
        long size = bytes.byteSize();
        while (at < size) {
            if (!inFragment) {
                header = (header << 8) | (bytes.get(ValueLayout.JAVA_BYTE, at) & 0xFF);
                at++;
                if (++headerBytes == RecordMarking.HEADER_SIZE) {
                    startFragment(streamOffset + at - RecordMarking.HEADER_SIZE);
                    if (fragmentRemaining == 0 && lastFragment) {
                        completeRecord(records);
                    }
                }
                continue;
            }
            int take = (int) Math.min(fragmentRemaining, size - at);
            ensureCapacity(recordLength + take);
            MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, at, record, recordLength, take);
            recordLength += take;
            fragmentRemaining -= take;
            at += take;
            if (fragmentRemaining == 0) {
                if (lastFragment) {
                    completeRecord(records);
                } else {
                    inFragment = false;
                }
            }
        }
        streamOffset += size;
    }

    /** {@return whether the decoder holds part of a record (the stream ended mid-record if it closes now)} */
    public boolean hasPartialRecord() {
        return headerBytes > 0 || inFragment || recordLength > 0;
    }

    private void startFragment(long headerOffset) {
        int length = RecordMarking.length(header);
        lastFragment = RecordMarking.isLast(header);
        headerBytes = 0;
        header = 0;
        if ((long) recordLength + length > maxRecordSize) {
            failed = true;
            throw new XdrException(
                    XdrException.Reason.LIMIT_EXCEEDED,
                    headerOffset,
                    "record of at least " + ((long) recordLength + length) + " bytes exceeds the maximum record size "
                            + maxRecordSize);
        }
        fragmentRemaining = length;
        inFragment = true;
    }

    private void completeRecord(Consumer<? super MemorySegment> records) {
        MemorySegment complete = MemorySegment.ofArray(record).asSlice(0, recordLength);
        recordLength = 0;
        inFragment = false;
        lastFragment = false;
        records.accept(complete);
    }

    private void ensureCapacity(int needed) {
        if (needed > record.length) {
            // double, but never beyond the maximum: growth follows arriving data, not announced lengths
            int capacity = (int) Math.min(Math.max((long) record.length * 2, needed), maxRecordSize);
            record = Arrays.copyOf(record, capacity);
        }
    }
}
