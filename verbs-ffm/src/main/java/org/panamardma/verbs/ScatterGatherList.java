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
    /**
     * The region and offset of each element, beside the native array: a post checks the regions are still open,
     * and an inline post copies the bytes from their segments rather than letting the provider read raw addresses
     * whose memory may have been freed since {@link #add}.
     */
    final MemoryRegion[] regions;

    final long[] offsets;
    private final int capacity;
    private int count;
    private long totalLength;

    /**
     * An empty list of room for {@code capacity} elements.
     *
     * @param capacity the most elements, at least 1; at most the QP's {@code max_send_sge} when posted
     * @throws IllegalArgumentException if {@code capacity} is below 1
     */
    public ScatterGatherList(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.array = arena.allocate(SGE_SIZE * capacity, 8);
        this.regions = new MemoryRegion[capacity];
        this.offsets = new long[capacity];
    }

    /**
     * Empties the list, for reuse; returns it.
     *
     * @return this list
     */
    public ScatterGatherList clear() {
        java.util.Arrays.fill(regions, 0, count, null);
        count = 0;
        totalLength = 0;
        return this;
    }

    /**
     * Adds {@code length} bytes of {@code mr} at {@code offset}.
     *
     * @param mr     the region the bytes are in (its lkey goes into the element)
     * @param offset where in {@code mr}, in bytes
     * @param length bytes of this element
     * @return this list, for chaining
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     * @throws IllegalStateException if the list is full
     */
    public ScatterGatherList add(MemoryRegion mr, long offset, int length) {
        if (count == capacity) {
            throw new IllegalStateException("scatter/gather list full (" + capacity + " elements)");
        }
        mr.checkRange(offset, Integer.toUnsignedLong(length));
        long base = count * SGE_SIZE;
        array.set(JAVA_LONG, base + ibv_sge.addr$OFFSET, mr.address() + offset);
        array.set(JAVA_INT, base + ibv_sge.length$OFFSET, length);
        array.set(JAVA_INT, base + ibv_sge.lkey$OFFSET, mr.lkey());
        regions[count] = mr;
        offsets[count] = offset;
        count++;
        totalLength += Integer.toUnsignedLong(length);
        return this;
    }

    /** {@return the number of elements} */
    public int count() {
        return count;
    }

    /** {@return the bytes of all elements together} */
    public long totalLength() {
        return totalLength;
    }

    /** Length of element {@code i}, as added. */
    int length(int i) {
        return array.get(JAVA_INT, i * SGE_SIZE + ibv_sge.length$OFFSET);
    }

    /** Throws {@link IllegalStateException} if a region of the list was closed since it was added. */
    void checkRegionsOpen() {
        for (int i = 0; i < count; i++) {
            regions[i].checkOpen();
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
