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
 */
public final class WorkCompletions implements AutoCloseable {
    private static final long WC_SIZE = ibv_wc.layout().byteSize();

    private final Arena arena;
    final MemorySegment array;
    private final int capacity;
    private int count;

    private WorkCompletions(int capacity) {
        this.arena = Arena.ofShared();
        this.capacity = capacity;
        this.array = arena.allocate(WC_SIZE * capacity, 8);
    }

    public static WorkCompletions allocate(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        return new WorkCompletions(capacity);
    }

    public int capacity() {
        return capacity;
    }

    /** How many completions the last poll returned. */
    public int count() {
        return count;
    }

    void count(int n) {
        this.count = n;
    }

    private long base(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("completion " + i + " of " + count);
        }
        return i * WC_SIZE;
    }

    public long wrId(int i) {
        return array.get(JAVA_LONG, base(i) + ibv_wc.wr_id$OFFSET);
    }

    public WcStatus status(int i) {
        return WcStatus.of(array.get(JAVA_INT, base(i) + ibv_wc.status$OFFSET));
    }

    public boolean isSuccess(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.status$OFFSET) == verbs_h.IBV_WC_SUCCESS;
    }

    /** Valid only for successful completions (verbs leaves it undefined otherwise). */
    public WcOpcode opcode(int i) {
        return WcOpcode.of(array.get(JAVA_INT, base(i) + ibv_wc.opcode$OFFSET));
    }

    /** Bytes received (receives, RDMA READ, atomics' 8). */
    public int byteLength(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.byte_len$OFFSET);
    }

    public boolean hasImmediate(int i) {
        return (array.get(JAVA_INT, base(i) + ibv_wc.wc_flags$OFFSET) & verbs_h.IBV_WC_WITH_IMM) != 0;
    }

    /** The immediate data, in host byte order (verbs carries it in network byte order). */
    public int immediate(int i) {
        return Integer.reverseBytes(array.get(JAVA_INT, base(i) + ibv_wc.$anon0$imm_data$OFFSET));
    }

    /** Whether the peer's Send With Invalidate invalidated one of our keys ({@code IBV_WC_WITH_INV}, receives only). */
    public boolean hasInvalidated(int i) {
        return (array.get(JAVA_INT, base(i) + ibv_wc.wc_flags$OFFSET) & verbs_h.IBV_WC_WITH_INV) != 0;
    }

    /** The key the peer invalidated, where {@link #hasInvalidated} (host byte order, unlike immediate data). */
    public int invalidatedRkey(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.$anon0$invalidated_rkey$OFFSET);
    }

    public int qpNumber(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.qp_num$OFFSET);
    }

    public int vendorError(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.vendor_err$OFFSET);
    }

    public int flags(int i) {
        return array.get(JAVA_INT, base(i) + ibv_wc.wc_flags$OFFSET);
    }

    /** Throws {@link WorkCompletionException} (status name and vendor error) unless completion {@code i} succeeded. */
    public void check(int i) throws WorkCompletionException {
        if (!isSuccess(i)) {
            throw new WorkCompletionException(wrId(i), status(i), vendorError(i), "QP " + qpNumber(i));
        }
    }

    @Override
    public void close() {
        count = 0;
        arena.close();
    }
}
