package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.ibv_wc;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * A reusable array of work completions that {@link CompletionQueue#poll(WorkCompletions)} fills; read entry
 * {@code i < count()} with the accessors. Allocate one per polling thread and reuse it: polling allocates nothing.
 *
 * <p>Its native array ({@code capacity} {@code struct ibv_wc}s) belongs to an automatic arena: {@link #close()} makes
 * this object unusable at once, and the garbage collector frees the memory once nothing refers to it. Why not free
 * it at close: a poll writes into it, and a close from another thread must not free it under a poll (an extended
 * poll that failed half-way between {@code ibv_start_poll} and {@code ibv_end_poll} would lose completions, or on rxe
 * leave the CQ's lock held: issue 25 item 4); and a segment of a closeable shared arena handed to the provider is
 * acquired and released around each call (two compare-and-swaps, 2.6 ns per poll measured).
 */
public final class WorkCompletions implements AutoCloseable {
    private static final long WC_SIZE = ibv_wc.layout().byteSize();

    final MemorySegment array;
    private final int capacity;
    private int count;
    private volatile boolean closed;

    private WorkCompletions(int capacity) {
        this.capacity = capacity;
        this.array = Arena.ofAuto().allocate(WC_SIZE * capacity, 8);
    }

    /**
     * Native room for {@code capacity} completions (close it when done).
     *
     * @param capacity the most completions one poll takes, at least 1
     * @return the array, in an arena of its own
     * @throws IllegalArgumentException if {@code capacity} is below 1
     */
    public static WorkCompletions allocate(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        return new WorkCompletions(capacity);
    }

    /** {@return the most completions one poll takes into it} */
    public int capacity() {
        return capacity;
    }

    /** {@return how many completions the last poll returned} */
    public int count() {
        return count;
    }

    void count(int n) {
        this.count = n;
    }

    /** Throws {@link IllegalStateException} once closed: before a poll writes into it. */
    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("work completions (" + capacity + ") are closed");
        }
    }

    private long base(int i) {
        checkOpen();
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("completion " + i + " of " + count);
        }
        return i * WC_SIZE;
    }

    /**
     * The wr_id of completion {@code i}: the request's (or receive's) own.
     *
     * @param i the completion's index, below {@link #count()}
     * @return the wr_id
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public long wrId(int i) {
        return array.get(JAVA_LONG, base(i) + ibv_wc.wr_id$OFFSET);
    }

    /**
     * The status of completion {@code i}.
     *
     * @param i the completion's index, below {@link #count()}
     * @return the status
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public WcStatus status(int i) {
        return WcStatus.of(array.get(JAVA_INT, base(i) + ibv_wc.status$OFFSET));
    }

    /**
     * Whether completion {@code i} succeeded ({@code IBV_WC_SUCCESS}).
     *
     * @param i the completion's index, below {@link #count()}
     * @return whether it succeeded
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public boolean isSuccess(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.status$OFFSET) == verbs_h.IBV_WC_SUCCESS;
    }

    /**
     * Valid only for successful completions (verbs leaves it undefined otherwise).
     *
     * @param i the completion's index, below {@link #count()}
     * @return what the completion is of: a SEND, a receive, an RDMA READ...
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public WcOpcode opcode(int i) {
        return WcOpcode.of(array.get(JAVA_INT, base(i) + ibv_wc.opcode$OFFSET));
    }

    /**
     * Bytes received (receives, RDMA READ, atomics' 8).
     *
     * @param i the completion's index, below {@link #count()}
     * @return the byte count ({@code byte_len})
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public int byteLength(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.byte_len$OFFSET);
    }

    /**
     * Whether completion {@code i} carries immediate data ({@code IBV_WC_WITH_IMM}).
     *
     * @param i the completion's index, below {@link #count()}
     * @return whether it carries immediate data
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public boolean hasImmediate(int i) {
        return (array.get(JAVA_INT, base(i) + ibv_wc.wc_flags$OFFSET) & verbs_h.IBV_WC_WITH_IMM) != 0;
    }

    /**
     * The immediate data, in host byte order (verbs carries it in network byte order).
     *
     * @param i the completion's index, below {@link #count()}
     * @return the immediate data; meaningful where {@link #hasImmediate} only
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public int immediate(int i) {
        return Integer.reverseBytes(array.get(JAVA_INT, base(i) + ibv_wc.$anon0$imm_data$OFFSET));
    }

    /**
     * Whether the peer's Send With Invalidate invalidated one of our keys ({@code IBV_WC_WITH_INV}, receives only).
     *
     * @param i the completion's index, below {@link #count()}
     * @return whether the completion names an invalidated key
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public boolean hasInvalidated(int i) {
        return (array.get(JAVA_INT, base(i) + ibv_wc.wc_flags$OFFSET) & verbs_h.IBV_WC_WITH_INV) != 0;
    }

    /**
     * The key the peer invalidated, where {@link #hasInvalidated} (host byte order, unlike immediate data).
     *
     * @param i the completion's index, below {@link #count()}
     * @return the invalidated rkey
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public int invalidatedRkey(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.$anon0$invalidated_rkey$OFFSET);
    }

    /**
     * The number of the queue pair completion {@code i} is of.
     *
     * @param i the completion's index, below {@link #count()}
     * @return the QP number ({@code qp_num}): tells apart QPs sharing the CQ
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public int qpNumber(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.qp_num$OFFSET);
    }

    /**
     * The provider's vendor error of completion {@code i}.
     *
     * @param i the completion's index, below {@link #count()}
     * @return the vendor error ({@code vendor_err}), 0 if the provider gives none
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public int vendorError(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.vendor_err$OFFSET);
    }

    /**
     * The {@code wc_flags} of completion {@code i}.
     *
     * @param i the completion's index, below {@link #count()}
     * @return the {@code IBV_WC_*} flag bits (WITH_IMM, WITH_INV, GRH...)
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public int flags(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.wc_flags$OFFSET);
    }

    /**
     * Throws {@link WorkCompletionException} (status name and vendor error) unless completion {@code i} succeeded.
     *
     * @param i the completion's index, below {@link #count()}
     * @throws WorkCompletionException if it did not succeed, with its wr_id, status and vendor error
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #count()}
     */
    public void check(int i) throws WorkCompletionException {
        if (!isSuccess(i)) {
            throw new WorkCompletionException(wrId(i), status(i), vendorError(i), "QP " + qpNumber(i));
        }
    }

    /** Makes this unusable; the native array is freed by the garbage collector once unreachable. Idempotent. */
    @Override
    public void close() {
        closed = true;
        count = 0;
    }
}
