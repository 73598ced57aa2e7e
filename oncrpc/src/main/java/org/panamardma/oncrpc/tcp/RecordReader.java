package org.panamardma.oncrpc.tcp;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.panamardma.oncrpc.RecordMarking;
import org.panamardma.oncrpc.limits.MemoryBudget;
import org.panamardma.xdr.XdrException;

/**
 * Reads a connection's call records (RFC 5531 section 11) under the server's limits, one record at a time, each into
 * an array of its own that the call then owns (nothing stays with the connection between records).
 *
 * <ul>
 *   <li>A record longer than the maximum is refused as soon as a fragment header announces it (a protocol error: the
 *       connection is closed).
 *   <li>Memory is counted before it is read: each fragment's announced length (and, with the first, the room the
 *       call's reply will take) is taken from the connection's {@link MemoryBudget}, waiting up to the memory wait;
 *       the array then grows as the data really arrives, so a client announcing much and sending little costs
 *       budget, never heap. When the budget refuses, the rest of the record is read and thrown away and the call is
 *       dropped ({@link Record#dropped()}), as Linux's sunrpc drops a request it cannot take: the client
 *       retransmits, the connection goes on.
 *   <li>From its first byte a record must arrive whole within the read timeout, time spent waiting for the server's
 *       own memory excluded: {@link #overdue} tells the server's watchdog when it did not (a half-open connection,
 *       or a client trickling a record a byte at a time).
 * </ul>
 *
 * Not thread-safe, but {@link #overdue} and {@link #inRecord} may be called from any thread.
 */
final class RecordReader {
    /** How far a record's array grows ahead of the data read into it. */
    private static final int GROWTH_STEP = 64 << 10;

    /**
     * One record read.
     *
     * @param data the record's bytes (at least {@code length} long), or null if dropped
     * @param length the record's length
     * @param charged the bytes taken from the budget for it and its reply, to give back when its call ends
     */
    record Record(byte[] data, int length, long charged) {
        /** {@return whether the record was read and thrown away for want of memory} */
        boolean dropped() {
            return data == null;
        }
    }

    private final InputStream in;
    private final int maxRecordSize;
    private final MemoryBudget memory;
    private final long memoryWaitNanos;
    private final long readTimeoutNanos;
    private final long perCall;
    private final byte[] scratch = new byte[8192];
    /** When the record being read must be whole; 0 between records and while waiting for memory. */
    private volatile long deadline;

    private volatile boolean inRecord;

    /**
     * @param in the connection's input
     * @param maxRecordSize the largest record accepted
     * @param memory the connection's budget
     * @param memoryWaitNanos how long a record waits for memory before it is dropped
     * @param readTimeoutNanos how long a record may take to arrive
     * @param perCall bytes each call takes besides its record (its reply buffer)
     */
    RecordReader(
            InputStream in,
            int maxRecordSize,
            MemoryBudget memory,
            long memoryWaitNanos,
            long readTimeoutNanos,
            long perCall) {
        this.in = in;
        this.maxRecordSize = maxRecordSize;
        this.memory = memory;
        this.memoryWaitNanos = memoryWaitNanos;
        this.readTimeoutNanos = readTimeoutNanos;
        this.perCall = perCall;
    }

    /**
     * Reads the next record, waiting for its first byte as long as it takes (the idle timeout is the server's).
     *
     * @return the record, or null at the end of the stream between records
     * @throws XdrException {@link XdrException.Reason#LIMIT_EXCEEDED} for a record over the maximum (nothing of it is
     *                      held then)
     * @throws EOFException if the stream ends in the middle of a record
     * @throws IOException if reading fails
     * @throws InterruptedException if interrupted while waiting for memory (nothing is held then)
     */
    Record next() throws IOException, InterruptedException {
        int first = in.read();
        if (first < 0) {
            return null;
        }
        inRecord = true;
        deadline = System.nanoTime() + readTimeoutNanos;
        long charged = 0;
        boolean done = false;
        try {
            int header = (first << 24) | readThreeBytes();
            byte[] data = new byte[0];
            int length = 0;
            boolean dropping = false;
            while (true) {
                int fragment = RecordMarking.length(header);
                if ((long) length + fragment > maxRecordSize) {
                    throw new XdrException(
                            XdrException.Reason.LIMIT_EXCEEDED,
                            length,
                            "record of at least " + ((long) length + fragment)
                                    + " bytes exceeds the maximum record size " + maxRecordSize);
                }
                if (!dropping) {
                    long need = fragment + (charged == 0 ? perCall : 0);
                    if (take(need)) {
                        charged += need;
                    } else {
                        dropping = true;
                        memory.release(charged);
                        charged = 0;
                        data = null;
                    }
                }
                if (dropping) {
                    skip(fragment);
                } else {
                    data = readInto(data, length, fragment);
                }
                length += fragment;
                if (RecordMarking.isLast(header)) {
                    break;
                }
                header = readInt();
            }
            done = true;
            return new Record(data, length, charged);
        } finally {
            if (!done) {
                memory.release(charged);
            }
            deadline = 0;
            inRecord = false;
        }
    }

    /** {@return whether a record has begun and not ended} */
    boolean inRecord() {
        return inRecord;
    }

    /** {@return whether the record being read has taken longer than the read timeout (memory waits excluded)} */
    boolean overdue(long now) {
        long d = deadline;
        return d != 0 && now - d > 0;
    }

    /** Takes memory for the record, the time waited not counting against its read timeout. */
    private boolean take(long bytes) throws InterruptedException {
        long left = deadline - System.nanoTime();
        deadline = 0;
        try {
            return memory.acquire(bytes, memoryWaitNanos);
        } finally {
            deadline = System.nanoTime() + left;
        }
    }

    /** Reads {@code n} bytes after {@code length} bytes of {@code data}, growing it as they arrive. */
    private byte[] readInto(byte[] data, int length, int n) throws IOException {
        int end = length + n;
        int at = length;
        while (at < end) {
            if (at == data.length) {
                // grow with the data, never ahead of it by more than a step: an announced length costs nothing
                int capacity = (int) Math.min(end, Math.max((long) data.length * 2, (long) at + GROWTH_STEP));
                data = Arrays.copyOf(data, capacity);
            }
            int r = in.read(data, at, Math.min(end, data.length) - at);
            if (r < 0) {
                throw new EOFException("peer closed the connection in the middle of a record");
            }
            at += r;
        }
        return data;
    }

    private void skip(int n) throws IOException {
        int left = n;
        while (left > 0) {
            int r = in.read(scratch, 0, Math.min(left, scratch.length));
            if (r < 0) {
                throw new EOFException("peer closed the connection in the middle of a record");
            }
            left -= r;
        }
    }

    private int readThreeBytes() throws IOException {
        return (readByte() << 16) | (readByte() << 8) | readByte();
    }

    private int readInt() throws IOException {
        return (readByte() << 24) | readThreeBytes();
    }

    private int readByte() throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("peer closed the connection in the middle of a record");
        }
        return b;
    }
}
