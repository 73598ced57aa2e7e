package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.RdmaException;

/** One buffer of a {@link BufferPool} leased for one use; given back by {@link #release()}, once, from any thread. */
public final class Lease {
    private final BufferPool pool;
    private final Slot slot;
    private final MemorySegment segment;
    /** Guarded by the pool. */
    boolean released;

    Lease(BufferPool pool, Slot slot, MemorySegment segment) {
        this.pool = pool;
        this.slot = slot;
        this.segment = segment;
    }

    /**
     * @return the leased bytes, as many as asked for
     * @throws IllegalStateException if the lease was given back, or its pool freed it at close
     */
    public MemorySegment segment() {
        pool.checkLeased(this);
        return segment;
    }

    /** @return the buffer's slot: what {@link BufferPool#region(Slot)} and {@link BufferPool#acquireUse} name */
    public Slot slot() {
        return slot;
    }

    /** @return the size of the buffer's class: how much memory it holds */
    public long capacity() {
        return slot.size();
    }

    /**
     * @return the registration to post from or bind a window to (see {@link BufferPool#region})
     * @throws RdmaException if registering failed
     */
    public Registration region() throws RdmaException {
        return pool.region(slot);
    }

    /** @return where {@link #segment()} starts in {@link #region()} */
    public long regionOffset() {
        return slot.slab.whole != null ? slot.offset : 0;
    }

    /**
     * Gives the buffer back (when no call uses it any more); later calls do nothing.
     *
     * @return whether this call gave it back
     */
    public boolean release() {
        return pool.release(this);
    }

    @Override
    public String toString() {
        return "pool buffer of " + segment.byteSize() + " bytes (class " + slot.size() + ") at 0x"
                + Long.toHexString(segment.address());
    }
}
