package org.panamardma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.panamardma.verbs.MemoryRegion;

/**
 * A buffer of a {@link SlabPool}: a chunk of a registered slab, reused. Each chunk has one such object for as long
 * as the chunk stays in it: allocating takes a free one (reference count reset, indices cleared), releasing the last
 * reference gives it back; nothing is allocated either way.
 *
 * <p>A buffer that grows or shrinks ({@link #capacity(int)}) leaves registered memory: its bytes move to ordinary
 * direct memory, its chunk goes back to the pool under a new object, and the transport copies it like any foreign
 * buffer from then on ({@link #isRegistered()}).
 */
final class SlabByteBuf extends UnpooledDirectByteBuf {
    private final SlabPool pool;
    final SlabPool.Slab slab;
    /** The chunk's offset in its slab, and its memory. */
    final long offset;

    final MemorySegment chunk;
    final int sizeClass;
    private boolean attached = true;

    SlabByteBuf(SlabPool pool, SlabPool.Slab slab, long offset, MemorySegment chunk, ByteBuffer view, int sizeClass) {
        super(pool.allocator(), view, Integer.MAX_VALUE);
        this.pool = pool;
        this.slab = slab;
        this.offset = offset;
        this.chunk = chunk;
        this.sizeClass = sizeClass;
    }

    /** Ready for a new owner: one reference, empty. Called by the pool only. */
    SlabByteBuf reuse(int maxCapacity) {
        resetRefCnt();
        maxCapacity(Math.max(maxCapacity, capacity()));
        clear();
        markReaderIndex();
        markWriterIndex();
        return this;
    }

    /** Whether the bytes are still in the registered chunk (they are unless the capacity changed). */
    boolean isRegistered() {
        return attached;
    }

    MemoryRegion region() {
        return slab.region;
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        if (attached && newCapacity != capacity()) {
            // copied out by the superclass (which never frees a buffer it was given), then the chunk is free again
            super.capacity(newCapacity);
            attached = false;
            pool.detached(this);
            return this;
        }
        return super.capacity(newCapacity);
    }

    @Override
    protected void deallocate() {
        if (attached) {
            pool.release(this);
        } else {
            super.deallocate();
        }
    }
}
