package org.panamardma.rpcrdma.client;

import java.time.Duration;
import org.panamardma.rpcrdma.memory.BufferPool;
import org.panamardma.rpcrdma.memory.LocalRegistrar;
import org.panamardma.rpcrdma.memory.PoolExhaustedException;
import org.panamardma.verbs.RdmaException;

/**
 * Native buffers of a client, leased by the caller and by the client itself (Reply chunks, bounce buffers for heap
 * data), so that calls in steady state allocate nothing: DDP-eligible data and placement targets a caller keeps here
 * are exposed to the server as they are, without a copy.
 *
 * <p><b>Size classes.</b> A request is served from the smallest class at least as large; more than the largest
 * class is refused ({@link IllegalArgumentException}). Each class grows by slabs: one allocation of
 * {@code slabBytes} (or of one buffer, when the class is larger), cut into buffers of the class size, kept until the
 * pool closes.
 *
 * <p><b>Bounded.</b> The pool never holds more than {@code maxPinnedBytes}: an allocation finding its class empty
 * and no room for another slab fails at once ({@link #allocate(long)}) or waits for a release until its deadline
 * ({@link #allocate(long, Duration)}), then throws {@link BufferPoolExhaustedException}.
 *
 * <p><b>What the server reaches.</b> Nothing of the pool is exposed by itself. A call exposes the segments of its
 * chunks only (see {@link ChunkExposure}): with memory windows, each buffer is registered on its first use as a
 * region of its own, without any remote right, and a window bound for the call over the segment; with per-call
 * registration, the segment is registered for the call. Either way the key dies before the call completes, and a
 * neighbouring buffer (another call's, or free) is outside every key the server was given: a server writing beyond
 * its segment fails with a remote access error. (On rxe a window reaches its whole region, here one buffer.)
 *
 * <p><b>Safety.</b> Leases are handles ({@link RegisteredBuffer}): a double release and a use of a released
 * buffer throw {@link IllegalStateException}. A buffer still used by a call is returned to its class only once that
 * call lets go of it. After {@link #close()} leased segments are closed too (their memory is freed with the
 * pool): touching one throws {@link IllegalStateException}, it cannot crash the JVM.
 *
 * <p>Thread-safe. (The client's face of the transports' one pool, {@code memory.BufferPool.forCalls}, which a server
 * connection's pool shares.)
 */
public final class RegisteredBufferPool implements AutoCloseable {
    /** 4 KiB (a Reply chunk of the default inline size) to 1 MiB (the largest NFS rsize/wsize), by fours. */
    public static final long[] DEFAULT_CLASSES = {4096, 16384, 65536, 262144, 1048576};
    /** The default slab: 1 MiB per allocation. */
    public static final long DEFAULT_SLAB_BYTES = 1 << 20;

    private final BufferPool pool;

    /**
     * @param name names the pool in messages
     * @param registrar registers buffers as regions of their own, for memory windows
     * @param classSizes the buffer sizes, strictly ascending, each positive and a multiple of 64
     * @param slabBytes bytes per slab (a class larger than this gets one buffer per slab)
     * @param maxPinnedBytes the most bytes the pool may hold
     */
    RegisteredBufferPool(
            String name, LocalRegistrar registrar, long[] classSizes, long slabBytes, long maxPinnedBytes) {
        this.pool = BufferPool.forCalls(name, registrar, classSizes, slabBytes, maxPinnedBytes);
    }

    /** {@return the pool behind this face, which the client's calls look their segments up in} */
    BufferPool pool() {
        return pool;
    }

    /**
     * Leases a buffer of at least {@code size} bytes without waiting.
     *
     * @param size the bytes wanted
     * @return the buffer, its {@link RegisteredBuffer#segment()} {@code size} bytes long
     * @throws IllegalArgumentException if {@code size} is not positive or above the largest class
     * @throws BufferPoolExhaustedException if no buffer is free and the pool may not hold more
     * @throws IllegalStateException if the pool is closed
     * @throws RdmaException never in this pool (its buffers are registered on a call's first use), declared for
     *     the pool's registrations
     */
    public RegisteredBuffer allocate(long size) throws RdmaException {
        try {
            return new RegisteredBuffer(pool.lease(size));
        } catch (PoolExhaustedException e) {
            throw new BufferPoolExhaustedException(e.getMessage());
        }
    }

    /**
     * Leases a buffer of at least {@code size} bytes, waiting up to {@code wait} for one to be released when the
     * pool is at its maximum of pinned bytes.
     *
     * @param size the bytes wanted
     * @param wait the longest wait
     * @return the buffer, its {@link RegisteredBuffer#segment()} {@code size} bytes long
     * @throws BufferPoolExhaustedException if none came free within {@code wait}
     * @throws InterruptedException if interrupted while waiting
     * @throws RdmaException see {@link #allocate(long)}
     * @see #allocate(long)
     */
    public RegisteredBuffer allocate(long size, Duration wait) throws RdmaException, InterruptedException {
        try {
            return new RegisteredBuffer(pool.lease(size, Math.max(0, wait.toNanos())));
        } catch (PoolExhaustedException e) {
            throw new BufferPoolExhaustedException(e.getMessage());
        }
    }

    /** {@return bytes the pool holds (its slabs)} */
    public long pinnedBytes() {
        return pool.pinnedBytes();
    }

    /** {@return the most bytes the pool may hold} */
    public long maxPinnedBytes() {
        return pool.maxPinnedBytes();
    }

    /** {@return buffers leased and not yet returned} */
    public int leased() {
        return pool.leased();
    }

    /** {@return the registrations the pool has made: one per buffer that a window was bound to} */
    public long registrations() {
        return pool.registrations();
    }

    /** {@return the registrations the pool has dropped (at close, or after losing a race for a buffer's first use)} */
    public long deregistrations() {
        return pool.deregistrations();
    }

    /** {@return the buffer sizes, ascending} */
    public long[] classSizes() {
        return pool.classSizes();
    }

    /**
     * Deregisters every buffer's region and frees the slabs. Leased buffers become unusable
     * ({@link IllegalStateException} on access); the client closes its pool after its calls have ended (their windows
     * revoked). A slab with a buffer whose deregistration failed stays allocated: the device may still reach it.
     * Idempotent.
     */
    @Override
    public void close() {
        pool.close();
    }

    @Override
    public String toString() {
        return pool.toString();
    }
}
