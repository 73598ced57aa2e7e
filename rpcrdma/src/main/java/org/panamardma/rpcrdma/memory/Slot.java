package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;

/** One buffer of a {@link BufferPool}'s slab; its fields are guarded by the pool. */
public final class Slot {
    final Slab slab;
    final long offset;
    /** The current lease, null while free. */
    Lease lease;
    /** Calls using the buffer now ({@link BufferPool#acquireUse}). */
    int uses;
    /** The buffer's own region ({@link BufferPool#forCalls}), once registered. */
    Registration region;

    Slot(Slab slab, long offset) {
        this.slab = slab;
        this.offset = offset;
    }

    /** @return the size of the buffer */
    public long size() {
        return slab.sizeClass.size;
    }

    /** @return the whole buffer */
    public MemorySegment buffer() {
        return slab.memory.asSlice(offset, slab.sizeClass.size);
    }

    /** @return the whole slab the buffer was cut from, its neighbours included (for tests) */
    public MemorySegment slabMemory() {
        return slab.memory;
    }
}
