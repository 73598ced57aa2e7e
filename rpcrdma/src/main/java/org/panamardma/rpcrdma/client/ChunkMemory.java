package org.panamardma.rpcrdma.client;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.memory.BufferPool;
import org.panamardma.rpcrdma.memory.CallRegistrar;
import org.panamardma.rpcrdma.memory.ChunkAccess;
import org.panamardma.rpcrdma.memory.Exposure;
import org.panamardma.rpcrdma.memory.Lease;
import org.panamardma.rpcrdma.memory.MemoryWindows;
import org.panamardma.rpcrdma.memory.PoolExhaustedException;
import org.panamardma.rpcrdma.memory.RegistrationCache;
import org.panamardma.rpcrdma.memory.Slot;
import org.panamardma.verbs.RdmaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a call's chunk memory comes from and how the server is let at it ({@link ChunkExposure}). The memory: a
 * buffer of the {@link RegisteredBufferPool} the caller leased and handed to the call, as it is; other native memory
 * of the caller, in place; for heap data and for what the client needs itself (Reply chunks, the whole call of a
 * Long Call) a buffer of the pool, or, when the pool is exhausted or a size exceeds its largest class, native memory
 * of the call's own. The exposure, over exactly the chunk's segment with its one right: a memory window bound for
 * the call ({@link MemoryWindows}; bound to the pool buffer's region, or to the caller's segment registered through
 * the {@link RegistrationCache}) or a registration for the call alone. Each {@link Chunk} is revoked
 * ({@link Exposure#revoke()}) before its memory is let go ({@link #release}).
 */
final class ChunkMemory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChunkMemory.class);

    private final String name;
    private final CallRegistrar registrar;
    /** Null: every chunk is registered for its call ({@link ChunkExposure#PER_CALL_REGISTRATION}). */
    private final MemoryWindows windows;
    /** The caller's face of {@link #pool}. */
    final RegisteredBufferPool buffers;

    private final BufferPool pool;
    final RegistrationCache cache;
    private final AtomicLong ownRegistrations = new AtomicLong();
    private final AtomicLong ownDeregistrations = new AtomicLong();

    /**
     * @param windows the client's memory windows, or null to register every chunk for its call
     */
    ChunkMemory(
            String name,
            CallRegistrar registrar,
            MemoryWindows windows,
            long[] classSizes,
            long slabBytes,
            long poolBytes,
            long cacheBytes) {
        this.name = name;
        this.registrar = registrar;
        this.windows = windows;
        this.buffers = new RegisteredBufferPool(name + " buffer pool", registrar, classSizes, slabBytes, poolBytes);
        this.pool = buffers.pool();
        this.cache = new RegistrationCache(name + " registration cache", registrar, cacheBytes);
    }

    /** {@return how chunks are exposed: windows or registrations per call (never {@link ChunkExposure#AUTO})} */
    ChunkExposure exposure() {
        return windows != null ? ChunkExposure.MEMORY_WINDOWS : ChunkExposure.PER_CALL_REGISTRATION;
    }

    /** The memory and the exposure of one chunk of one call: exactly one of the four memory sources is set. */
    static final class Chunk {
        /** The bytes the chunk advertises. */
        final MemorySegment segment;

        final Exposure exposure;
        /** Pool memory the caller leased and handed to the call. */
        final Slot slot;
        /** Pool memory the client leased for the call. */
        final Lease internal;
        /** The caller's memory registered through the cache (windows). */
        final RegistrationCache.Entry entry;
        /** Memory of the call's own (the pool had nothing to give). */
        final Arena own;

        private Chunk(
                MemorySegment segment,
                Exposure exposure,
                Slot slot,
                Lease internal,
                RegistrationCache.Entry entry,
                Arena own) {
            this.segment = segment;
            this.exposure = exposure;
            this.slot = slot;
            this.internal = internal;
            this.entry = entry;
            this.own = own;
        }

        /** {@return the chunk as the transport header describes it (RFC 8166 section 3.4.3: handle, length, offset)} */
        RdmaSegment rdmaSegment() {
            return new RdmaSegment(exposure.rkey(), Math.toIntExact(segment.byteSize()), segment.address());
        }
    }

    /**
     * Exposes {@code data} for one call: pool memory and other native memory in place, heap memory (which the device
     * cannot address) in a buffer of the pool, filled with {@code data} for a {@link ChunkAccess#SOURCE}.
     */
    Chunk expose(MemorySegment data, ChunkAccess access) throws RdmaException {
        if (!data.isNative()) {
            Chunk c = scratch(data.byteSize(), access);
            if (access == ChunkAccess.SOURCE) {
                MemorySegment.copy(data, 0, c.segment, 0, data.byteSize());
            }
            return c;
        }
        Slot slot = pool.acquireUse(data);
        if (slot != null) {
            try {
                return new Chunk(data, exposeIn(slot, data, access), slot, null, null, null);
            } catch (RdmaException | RuntimeException | Error e) {
                pool.endUse(slot);
                throw e;
            }
        }
        if (windows != null && cache.maxBytes() > 0) {
            RegistrationCache.Entry entry = cache.acquire(data);
            try {
                return new Chunk(data, windows.bind(entry.registration(), data, access), null, null, entry, null);
            } catch (RdmaException | RuntimeException | Error e) {
                cache.release(entry);
                throw e;
            }
        }
        return new Chunk(data, register(data, access), null, null, null, null);
    }

    /** {@code size} bytes of memory for the client's own use in one call, exposed with {@code access}. */
    Chunk scratch(long size, ChunkAccess access) throws RdmaException {
        if (pool.fits(size)) {
            Lease b = null;
            try {
                b = pool.lease(size);
                return new Chunk(b.segment(), exposeIn(b.slot(), b.segment(), access), null, b, null, null);
            } catch (PoolExhaustedException e) {
                // a call does not wait for the pool (its caller may be the one holding the buffers): it pays a
                // registration of its own instead, which registrations() shows
                LOG.atDebug().log(() -> name + ": " + e.getMessage() + "; " + size + " bytes of the call's own");
            } catch (RdmaException | RuntimeException | Error e) {
                if (b != null) {
                    b.release();
                }
                throw e;
            }
        }
        Arena own = Arena.ofShared();
        try {
            MemorySegment m = own.allocate(size, 4096);
            return new Chunk(m, register(m, access), null, null, null, own);
        } catch (RdmaException | RuntimeException | Error e) {
            own.close();
            throw e;
        }
    }

    /** A pool buffer's segment: a window over the buffer's region, or a registration of the segment. */
    private Exposure exposeIn(Slot slot, MemorySegment segment, ChunkAccess access) throws RdmaException {
        return windows != null ? windows.bind(pool.region(slot), segment, access) : register(segment, access);
    }

    /** A registration of exactly {@code segment} with {@code access}'s rights, for one call. */
    private Exposure register(MemorySegment segment, ChunkAccess access) throws RdmaException {
        Exposure e = registrar.exposeForCall(segment, access, ownDeregistrations::incrementAndGet);
        ownRegistrations.incrementAndGet();
        return e;
    }

    /**
     * The call lets go of {@code c}, whose exposure is revoked: the memory goes back (pool buffers to the pool,
     * the caller's registration to the cache, the call's own memory freed). If the revocation failed (a
     * deregistration the device refused), the memory stays as it is: the device may still reach it.
     */
    void release(Chunk c) {
        CompletableFuture<Void> revoked = c.exposure.revoke();
        if (!revoked.isDone() || revoked.isCompletedExceptionally()) {
            LOG.warn("{}: a chunk of {} bytes could not be revoked; its memory is kept", name, c.segment.byteSize());
            return;
        }
        if (c.slot != null) {
            pool.endUse(c.slot);
        } else if (c.internal != null) {
            c.internal.release();
        } else if (c.entry != null) {
            cache.release(c.entry);
        } else if (c.own != null) {
            c.own.close();
        }
    }

    /** The server's Send With Invalidate named {@code rkey} (see {@link MemoryWindows#invalidatedByPeer}). */
    void invalidatedByPeer(int rkey) {
        if (windows != null) {
            windows.invalidatedByPeer(rkey);
        }
    }

    /** The connection is lost or closing: every window is deallocated, so every window exposure is revoked. */
    void revokeAllWindows() {
        if (windows != null) {
            windows.closeAll();
        }
    }

    /** {@return every {@code ibv_reg_mr} made for chunks: pool buffers' regions, cache misses, calls' own} */
    long registrations() {
        return pool.registrations() + cache.registrations() + ownRegistrations.get();
    }

    /** {@return every {@code ibv_dereg_mr} of chunk memory so far} */
    long deregistrations() {
        return pool.deregistrations() + cache.deregistrations() + ownDeregistrations.get();
    }

    /** {@return windows bound so far (0 without windows)} */
    long windowBinds() {
        return windows == null ? 0 : windows.binds();
    }

    /** {@return windows allocated so far (0 without windows)} */
    long windowsAllocated() {
        return windows == null ? 0 : windows.allocated();
    }

    /** Revokes every window, then closes the cache (deregistering what no call uses) and the pool. */
    @Override
    public void close() {
        revokeAllWindows();
        cache.close();
        pool.close();
    }
}
