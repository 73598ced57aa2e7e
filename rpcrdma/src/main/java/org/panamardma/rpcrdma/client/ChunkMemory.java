package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.client.RegistrationCache.ChunkAccess;
import org.panamardma.verbs.RdmaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a client's chunk memory comes from, so that calls in steady state make no {@code ibv_reg_mr}: memory of
 * the {@link RegisteredBufferPool} is used as it is (registered once), other native memory of the caller through
 * the {@link RegistrationCache}, and memory the client needs for itself (Reply chunks, copies of heap data, the
 * whole call of a Long Call) is leased from the pool. Only when the pool is exhausted, or a size exceeds its largest
 * class, does a call register memory of its own ({@code ibv_reg_mr} and {@code ibv_dereg_mr} per call, as before the
 * pool); {@link #registrations()} counts every registration, so that tests and operators see when that happens.
 */
final class ChunkMemory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChunkMemory.class);

    private final String name;
    private final ChunkRegistrar registrar;
    final RegisteredBufferPool pool;
    final RegistrationCache cache;
    private final AtomicLong ownRegistrations = new AtomicLong();
    private final AtomicLong ownDeregistrations = new AtomicLong();

    ChunkMemory(String name, ChunkRegistrar registrar, long[] classSizes, long slabBytes, long poolBytes,
                long cacheBytes) {
        this.name = name;
        this.registrar = registrar;
        this.pool = new RegisteredBufferPool(name + " buffer pool", registrar, classSizes, slabBytes, poolBytes);
        this.cache = new RegistrationCache(name + " registration cache", registrar, cacheBytes);
    }

    /** Registered memory one call holds for one chunk: exactly one of the four sources is set. */
    static final class Chunk {
        /** The bytes the chunk advertises. */
        final MemorySegment segment;
        final int rkey;
        /** Pool memory the caller leased and handed to the call. */
        final RegisteredBufferPool.Slot slot;
        /** Pool memory the client leased for the call. */
        final RegisteredBuffer internal;
        /** Caller memory registered through the cache. */
        final RegistrationCache.Entry entry;
        /** The call's own registration (the pool had nothing to give). */
        final ChunkRegistrar.Registration own;

        private Chunk(MemorySegment segment, int rkey, RegisteredBufferPool.Slot slot, RegisteredBuffer internal,
                      RegistrationCache.Entry entry, ChunkRegistrar.Registration own) {
            this.segment = segment;
            this.rkey = rkey;
            this.slot = slot;
            this.internal = internal;
            this.entry = entry;
            this.own = own;
        }

        /** @return the chunk as the transport header describes it (RFC 8166 section 3.4.3: handle, length, offset) */
        RdmaSegment rdmaSegment() {
            return new RdmaSegment(rkey, Math.toIntExact(segment.byteSize()), segment.address());
        }

        /** @return whether the memory is the pool's (reused by later calls; the caller's own memory otherwise) */
        boolean pooled() {
            return slot != null || internal != null;
        }
    }

    /**
     * The registered memory for {@code data}: pool memory as it is, other native memory through the cache, heap
     * memory (which the device cannot address) copied, for a {@link ChunkAccess#SOURCE}, into memory of the pool.
     */
    Chunk expose(MemorySegment data, ChunkAccess access) throws RdmaException {
        if (data.isNative()) {
            RegisteredBufferPool.Slot slot = pool.acquireUse(data);
            if (slot != null) {
                return new Chunk(data, slot.rkey(), slot, null, null, null);
            }
            RegistrationCache.Entry entry = cache.acquire(data, access);
            return new Chunk(data, entry.rkey(), null, null, entry, null);
        }
        Chunk c = scratch(data.byteSize(), access);
        if (access == ChunkAccess.SOURCE) {
            MemorySegment.copy(data, 0, c.segment, 0, data.byteSize());
        }
        return c;
    }

    /** {@code size} bytes of registered memory for the client's own use in one call. */
    Chunk scratch(long size, ChunkAccess access) throws RdmaException {
        if (pool.fits(size)) {
            try {
                RegisteredBuffer b = pool.allocate(size);
                return new Chunk(b.segment(), b.slot.rkey(), null, b, null, null);
            } catch (BufferPoolExhaustedException e) {
                // a call does not wait for the pool (its caller may be the one holding the buffers): it pays a
                // registration of its own instead, which registrations() shows
                LOG.atDebug().log(() -> name + ": " + e.getMessage() + "; registering " + size + " bytes for one call");
            }
        }
        ChunkRegistrar.Registration r = registrar.allocate(size, access.rights);
        ownRegistrations.incrementAndGet();
        return new Chunk(r.segment(), r.rkey(), null, null, null, r);
    }

    /**
     * The call lets go of {@code c}.
     *
     * @param invalidate the call timed out after it was sent (see {@link RegistrationCache#release}); pool memory
     *     must not be released that way: the caller of this method keeps it until the server is done with it
     */
    void release(Chunk c, boolean invalidate) {
        if (c.slot != null) {
            pool.endUse(c.slot);
        } else if (c.internal != null) {
            c.internal.release();
        } else if (c.entry != null) {
            cache.release(c.entry, invalidate);
        } else {
            try {
                c.own.deregister();
            } catch (RuntimeException e) {
                LOG.warn(name + ": deregistering a call's own chunk memory", e);
            }
            ownDeregistrations.incrementAndGet();
        }
    }

    /** @return every {@code ibv_reg_mr} made for chunks: pool slabs, cache misses, calls' own */
    long registrations() {
        return pool.registrations() + cache.registrations() + ownRegistrations.get();
    }

    /** @return {@code ibv_dereg_mr} made for chunks so far (pool slabs go only at close) */
    long deregistrations() {
        return cache.deregistrations() + ownDeregistrations.get();
    }

    /** Closes the cache (deregistering what no call uses) and the pool. */
    @Override
    public void close() {
        cache.close();
        pool.close();
    }
}
