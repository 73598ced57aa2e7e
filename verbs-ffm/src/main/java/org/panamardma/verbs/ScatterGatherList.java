package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.ibv_sge;

/**
 * A reusable list of scatter/gather elements (registered buffer pieces) for work requests with several SGEs:
 * {@code sgl.clear().add(mr, 0, 64).add(mr2, 128, 4000)}. Allocates nothing after construction; not thread-safe
 * (one per posting thread).
 */
public final class ScatterGatherList implements AutoCloseable {
    static final long SGE_SIZE = ibv_sge.layout().byteSize();

    private final Arena arena = Arena.ofShared();
    final MemorySegment array;
    private final int capacity;
    private int count;
    private long totalLength;

    public ScatterGatherList(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.array = arena.allocate(SGE_SIZE * capacity, 8);
    }

    public ScatterGatherList clear() {
        count = 0;
        totalLength = 0;
        return this;
    }

    /** Adds {@code length} bytes of {@code mr} at {@code offset}. */
    public ScatterGatherList add(MemoryRegion mr, long offset, int length) {
        if (count == capacity) {
            throw new IllegalStateException("scatter/gather list full (" + capacity + " elements)");
        }
        mr.checkRange(offset, Integer.toUnsignedLong(length));
        long base = count * SGE_SIZE;
        array.set(JAVA_LONG, base + ibv_sge.addr$OFFSET, mr.address() + offset);
        array.set(JAVA_INT, base + ibv_sge.length$OFFSET, length);
        array.set(JAVA_INT, base + ibv_sge.lkey$OFFSET, mr.lkey());
        count++;
        totalLength += Integer.toUnsignedLong(length);
        return this;
    }

    public int count() {
        return count;
    }

    public long totalLength() {
        return totalLength;
    }

    @Override
    public void close() {
        arena.close();
    }
}
