package org.panamardma.netty;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * The allocator of an RDMA channel ({@code channel.alloc()}, {@code ctx.alloc()}): direct buffers come from the
 * event loop's registered slabs for the channel's device ({@link SlabPool}), so that a handler writing them is
 * zero-copy, and received bytes land in them. Heap buffers, and direct ones the pool cannot give (too large, or the
 * pool at its limit), come from Netty's pooled allocator.
 */
public final class RdmaByteBufAllocator extends AbstractByteBufAllocator {
    private final SlabPool pool;

    RdmaByteBufAllocator(SlabPool pool) {
        super(true);
        this.pool = pool;
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return PooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        SlabByteBuf b = pool.allocate(initialCapacity, maxCapacity);
        return b != null ? b : PooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
    }

    /** Registered direct memory only: null if the pool cannot give {@code size} bytes now. */
    SlabByteBuf registeredBuffer(int size) {
        return pool.allocate(size, size);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    /**
     * Bytes of registered slabs behind this allocator (pinned memory).
     *
     * @return the registered bytes
     */
    public long registeredBytes() {
        return pool.registeredBytes();
    }

    /**
     * Buffers of registered memory handed out and not yet released.
     *
     * @return the buffers in use
     */
    public long buffersInUse() {
        return pool.chunksInUse();
    }
}
