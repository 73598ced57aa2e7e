package org.panamardma.netty;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.RdmaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registered memory for {@code ByteBuf}s: slabs registered once in a protection domain, cut into chunks of one size
 * class each (powers of two from {@value #MIN_CHUNK} bytes to {@value #MAX_CHUNK}), each chunk with its own reusable
 * {@link SlabByteBuf}. A write of such a buffer is zero-copy: the transport posts it with the slab's lkey.
 *
 * <p>The slabs are registered {@code LOCAL_WRITE} only: no peer may touch them. A bulk transfer grants the peer one
 * chunk by a registration of that chunk alone, made for the transfer and removed when it is done.
 *
 * <p>Bounded: at most {@code limitBytes} of slabs (the pinned memory of one event loop on one device). Beyond, or for
 * a request larger than {@value #MAX_CHUNK}, {@link #allocate} returns null and the caller uses ordinary memory.
 * Thread-safe (buffers are released from any thread); allocation and release allocate nothing once the chunks exist.
 */
final class SlabPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SlabPool.class);
    static final int MIN_CHUNK = 512;
    static final int MAX_CHUNK = 4 * 1024 * 1024;
    /** A slab holds at least this many bytes (or one chunk of the largest classes). */
    static final int SLAB_BYTES = 1024 * 1024;

    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(MIN_CHUNK);
    private static final int CLASSES = Integer.numberOfTrailingZeros(MAX_CHUNK) - MIN_SHIFT + 1;

    /** A registered slab. */
    static final class Slab {
        final MemorySegment memory;
        final MemoryRegion region;

        Slab(MemorySegment memory, MemoryRegion region) {
            this.memory = memory;
            this.region = region;
        }
    }

    private final ProtectionDomain pd;
    private final long limitBytes;
    private final RdmaByteBufAllocator allocator;
    private final Arena arena = Arena.ofShared();
    private final List<Slab> slabs = new ArrayList<>();

    @SuppressWarnings("unchecked")
    private final ArrayDeque<SlabByteBuf>[] free = new ArrayDeque[CLASSES];

    private long slabBytes;
    private long chunksOut;
    private boolean closed;

    SlabPool(ProtectionDomain pd, long limitBytes) {
        this.pd = pd;
        this.limitBytes = limitBytes;
        this.allocator = new RdmaByteBufAllocator(this);
        for (int i = 0; i < CLASSES; i++) {
            free[i] = new ArrayDeque<>();
        }
    }

    ProtectionDomain protectionDomain() {
        return pd;
    }

    RdmaByteBufAllocator allocator() {
        return allocator;
    }

    static int sizeClass(int size) {
        int shift = size <= MIN_CHUNK ? MIN_SHIFT : 32 - Integer.numberOfLeadingZeros(size - 1);
        return shift - MIN_SHIFT;
    }

    static int classSize(int sizeClass) {
        return 1 << (sizeClass + MIN_SHIFT);
    }

    /**
     * A buffer of at least {@code size} bytes of registered memory, or null if the request is larger than
     * {@value #MAX_CHUNK} or the pool is at its limit.
     */
    SlabByteBuf allocate(int size, int maxCapacity) {
        if (size > MAX_CHUNK || size < 0) {
            return null;
        }
        int c = sizeClass(Math.max(1, size));
        synchronized (this) {
            if (closed) {
                return null;
            }
            SlabByteBuf b = free[c].pollFirst();
            if (b == null && carve(c)) {
                b = free[c].pollFirst();
            }
            if (b == null) {
                return null;
            }
            chunksOut++;
            return b.reuse(maxCapacity);
        }
    }

    /** Registers one more slab for class {@code c}; false at the limit or if registration fails. Holds the monitor. */
    private boolean carve(int c) {
        int chunkSize = classSize(c);
        long size = Math.max(SLAB_BYTES, chunkSize);
        if (slabBytes + size > limitBytes) {
            return false;
        }
        MemorySegment memory = arena.allocate(size, 4096);
        MemoryRegion region;
        try {
            region = pd.register(memory, Set.of(Access.LOCAL_WRITE));
        } catch (RdmaException | RuntimeException e) {
            LOG.warn("registering a slab of {} bytes: {}; using unregistered memory", size, e.toString());
            return false;
        }
        Slab slab = new Slab(memory, region);
        slabs.add(slab);
        slabBytes += size;
        for (long off = 0; off + chunkSize <= size; off += chunkSize) {
            MemorySegment chunk = memory.asSlice(off, chunkSize);
            free[c].addLast(new SlabByteBuf(this, slab, off, chunk, chunk.asByteBuffer(), c));
        }
        return true;
    }

    void release(SlabByteBuf b) {
        synchronized (this) {
            chunksOut--;
            if (!closed) {
                free[b.sizeClass].addFirst(b);
            }
        }
    }

    /** {@code b} left its chunk (capacity changed): the chunk is free again, under a new object. */
    void detached(SlabByteBuf b) {
        synchronized (this) {
            chunksOut--;
            if (!closed) {
                free[b.sizeClass].addFirst(
                        new SlabByteBuf(this, b.slab, b.offset, b.chunk, b.chunk.asByteBuffer(), b.sizeClass));
            }
        }
    }

    /** Bytes of registered slabs (pinned). */
    synchronized long registeredBytes() {
        return slabBytes;
    }

    /** Chunks handed out and not yet released. */
    synchronized long chunksInUse() {
        return chunksOut;
    }

    /**
     * Deregisters and frees the slabs. A buffer still held by the application fails on its next access
     * ({@code IllegalStateException} from the closed arena), never reads freed memory.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (ArrayDeque<SlabByteBuf> f : free) {
                f.clear();
            }
            for (Slab s : slabs) {
                s.region.close();
            }
            slabs.clear();
        }
        arena.close();
    }
}
