package org.panamardma.rpcrdma.client;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.RdmaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>Thread-safe: one monitor guards the classes, taken once per allocation, release and lookup; a new slab is
 * allocated and a buffer registered outside it.
 */
public final class RegisteredBufferPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RegisteredBufferPool.class);
    /** 4 KiB (a Reply chunk of the default inline size) to 1 MiB (the largest NFS rsize/wsize), by fours. */
    public static final long[] DEFAULT_CLASSES = {4096, 16384, 65536, 262144, 1048576};
    /** The default slab: 1 MiB per allocation. */
    public static final long DEFAULT_SLAB_BYTES = 1 << 20;

    private final String name;
    private final ChunkRegistrar registrar;
    private final SizeClass[] classes;
    private final long slabBytes;
    private final long maxPinnedBytes;
    /** By base address, for {@link #acquireUse}; replaced (copy on write) when a slab is added. */
    private volatile Slab[] slabs = new Slab[0];
    // guarded by this
    private long pinnedBytes;
    private long registrations;
    private long deregistrations;
    private int leased;
    private boolean closed;

    /**
     * @param name names the pool in messages
     * @param registrar registers buffers as regions of their own, for memory windows ({@link #region})
     * @param classSizes the buffer sizes, strictly ascending, each positive and a multiple of 64
     * @param slabBytes bytes per allocation of a class smaller than this
     * @param maxPinnedBytes the most bytes the pool holds, 0 for a pool that hands out nothing
     */
    RegisteredBufferPool(String name, ChunkRegistrar registrar, long[] classSizes, long slabBytes,
                         long maxPinnedBytes) {
        if (classSizes.length == 0) {
            throw new IllegalArgumentException("a pool needs at least one size class");
        }
        for (int i = 0; i < classSizes.length; i++) {
            if (classSizes[i] <= 0 || classSizes[i] % 64 != 0 || (i > 0 && classSizes[i] <= classSizes[i - 1])) {
                throw new IllegalArgumentException("size classes must be positive multiples of 64, strictly "
                        + "ascending: " + Arrays.toString(classSizes));
            }
        }
        if (slabBytes <= 0 || maxPinnedBytes < 0) {
            throw new IllegalArgumentException("slab bytes " + slabBytes + ", max pinned bytes " + maxPinnedBytes);
        }
        this.name = name;
        this.registrar = registrar;
        this.slabBytes = slabBytes;
        this.maxPinnedBytes = maxPinnedBytes;
        this.classes = new SizeClass[classSizes.length];
        for (int i = 0; i < classSizes.length; i++) {
            classes[i] = new SizeClass(classSizes[i]);
        }
    }

    /**
     * Leases a buffer of at least {@code size} bytes without waiting.
     *
     * @throws IllegalArgumentException if {@code size} is not positive or above the largest class
     * @throws BufferPoolExhaustedException if no buffer is free and the pool may not hold more
     * @throws IllegalStateException if the pool is closed
     */
    public RegisteredBuffer allocate(long size) throws RdmaException {
        return allocate(size, 0);
    }

    /**
     * Leases a buffer of at least {@code size} bytes, waiting up to {@code wait} for one to be released when the
     * pool is at its maximum of pinned bytes.
     *
     * @throws BufferPoolExhaustedException if none came free within {@code wait}
     * @throws InterruptedException if interrupted while waiting
     * @see #allocate(long)
     */
    public RegisteredBuffer allocate(long size, Duration wait) throws RdmaException, InterruptedException {
        long nanos = wait.toNanos();
        if (nanos <= 0) {
            return allocate(size);
        }
        return allocateWaiting(size, nanos);
    }

    private RegisteredBuffer allocate(long size, long nanos) throws RdmaException {
        try {
            return allocateWaiting(size, nanos);
        } catch (InterruptedException e) { // cannot happen without a wait
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private RegisteredBuffer allocateWaiting(long size, long nanos) throws RdmaException, InterruptedException {
        SizeClass c = classFor(size);
        long deadline = System.nanoTime() + nanos;
        while (true) {
            long slab;
            synchronized (this) {
                while (true) {
                    checkOpen();
                    Slot slot = c.free.poll();
                    if (slot != null) {
                        return lease(slot, size);
                    }
                    slab = Math.min(c.slabBytes, (maxPinnedBytes - pinnedBytes) / c.size * c.size);
                    if (slab > 0) {
                        pinnedBytes += slab; // reserved now, registered outside the monitor
                        break;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new BufferPoolExhaustedException(name + ": no free buffer of " + c.size
                                + " bytes for " + size + " asked; " + leased + " buffers leased, " + pinnedBytes
                                + " of at most " + maxPinnedBytes + " bytes pinned");
                    }
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            }
            grow(c, slab);
        }
    }

    /** Allocates a slab of {@code bytes} (already counted in {@link #pinnedBytes}) for class {@code c}. */
    private void grow(SizeClass c, long bytes) {
        Arena memory = Arena.ofShared();
        MemorySegment m;
        try {
            // page-aligned: a buffer of 4 KiB or more starts on a page of its own, and registering it pins no page
            // of a neighbour's
            m = memory.allocate(bytes, 4096);
        } catch (RuntimeException | Error e) {
            memory.close();
            synchronized (this) {
                pinnedBytes -= bytes;
                notifyAll();
            }
            throw e;
        }
        synchronized (this) {
            if (closed) {
                pinnedBytes -= bytes;
                memory.close();
                checkOpen();
            }
            Slab slab = new Slab(memory, m, c);
            Slab[] grown = Arrays.copyOf(slabs, slabs.length + 1);
            grown[grown.length - 1] = slab;
            Arrays.sort(grown, (a, b) -> Long.compareUnsigned(a.base, b.base));
            slabs = grown;
            c.free.addAll(Arrays.asList(slab.slots));
            notifyAll();
        }
    }

    /**
     * The region of {@code slot}'s buffer that windows are bound to: registered on first use with
     * {@link RegistrationCache#RIGHTS} (no remote right), exactly the buffer, and kept until the pool closes.
     */
    ChunkRegistrar.Registration region(Slot slot) throws RdmaException {
        synchronized (this) {
            checkOpen();
            if (slot.region != null) {
                return slot.region;
            }
        }
        ChunkRegistrar.Registration r = registrar.register(slot.memory(), RegistrationCache.RIGHTS);
        synchronized (this) {
            registrations++;
            if (slot.region == null && !closed) {
                slot.region = r;
                return r;
            }
        }
        deregister(r); // raced with another call's first use, or the close
        synchronized (this) {
            checkOpen();
            return slot.region;
        }
    }

    private SizeClass classFor(long size) {
        if (size <= 0) {
            throw new IllegalArgumentException(name + ": a buffer size must be positive: " + size);
        }
        for (SizeClass c : classes) {
            if (c.size >= size) {
                return c;
            }
        }
        throw new IllegalArgumentException(name + ": " + size + " bytes is more than the largest buffer class ("
                + classes[classes.length - 1].size + ")");
    }

    /** @return whether a buffer of {@code size} bytes has a class */
    boolean fits(long size) {
        return size > 0 && size <= classes[classes.length - 1].size;
    }

    // guarded by this
    private RegisteredBuffer lease(Slot slot, long size) {
        RegisteredBuffer b = new RegisteredBuffer(this, slot, slot.memory().asSlice(0, size));
        slot.lease = b;
        leased++;
        return b;
    }

    synchronized void checkLeased(RegisteredBuffer b) {
        if (b.released) {
            throw new IllegalStateException(name + ": " + b + " was released");
        }
        checkOpen();
    }

    synchronized void release(RegisteredBuffer b) {
        if (b.released) {
            throw new IllegalStateException(name + ": " + b + " released twice");
        }
        b.released = true;
        Slot slot = b.slot;
        if (slot.uses > 0) {
            return; // goes back when the last call using it lets go (endUse)
        }
        free(slot);
    }

    // guarded by this
    private void free(Slot slot) {
        slot.lease = null;
        leased--;
        if (!closed) {
            slot.sizeClass.free.push(slot); // LIFO: the buffer most recently used is the likeliest in cache
        }
        notifyAll();
    }

    /**
     * For the call path: if {@code segment} lies in a buffer of this pool, marks that buffer in use by a call (a
     * release meanwhile takes effect at {@link #endUse}) and returns it.
     *
     * @return the buffer's slot, or {@code null} if {@code segment} is not pool memory
     * @throws IllegalStateException if the buffer was released (use after release) or the pool is closed
     * @throws IllegalArgumentException if the segment spans two buffers
     */
    Slot acquireUse(MemorySegment segment) {
        if (!segment.isNative()) {
            return null;
        }
        Slab slab = slabAt(segment.address());
        // the scope check keeps memory that merely has a pool address (say, MemorySegment.ofAddress) out
        if (slab == null || !slab.memory.scope().equals(segment.scope())) {
            return null;
        }
        long offset = segment.address() - slab.base;
        int index = (int) (offset / slab.sizeClass.size);
        Slot slot = slab.slots[index];
        if (offset + segment.byteSize() > slot.offset + slot.size()) {
            throw new IllegalArgumentException(name + ": a segment of " + segment.byteSize() + " bytes at 0x"
                    + Long.toHexString(segment.address()) + " spans two pool buffers");
        }
        synchronized (this) {
            checkOpen();
            if (slot.lease == null || slot.lease.released) {
                throw new IllegalStateException(name + ": a call was given memory of a released pool buffer (0x"
                        + Long.toHexString(segment.address()) + ", " + segment.byteSize() + " bytes)");
            }
            slot.uses++;
            return slot;
        }
    }

    /** The call that {@link #acquireUse acquired} {@code slot} lets go of it. */
    synchronized void endUse(Slot slot) {
        if (slot.uses <= 0) {
            throw new IllegalStateException(name + ": buffer use ended more often than it began");
        }
        slot.uses--;
        if (slot.uses == 0 && slot.lease != null && slot.lease.released) {
            free(slot);
        }
    }

    /** @return the slabs now (for tests) */
    Slab[] slabsForTests() {
        return slabs.clone();
    }

    private Slab slabAt(long address) {
        Slab[] s = slabs;
        int lo = 0;
        int hi = s.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            Slab m = s[mid];
            if (Long.compareUnsigned(address, m.base) < 0) {
                hi = mid - 1;
            } else if (Long.compareUnsigned(address, m.base + m.bytes) >= 0) {
                lo = mid + 1;
            } else {
                return m;
            }
        }
        return null;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    /** @return bytes the pool holds (its slabs) */
    public synchronized long pinnedBytes() {
        return pinnedBytes;
    }

    /** @return the most bytes the pool may hold */
    public long maxPinnedBytes() {
        return maxPinnedBytes;
    }

    /** @return buffers leased and not yet returned */
    public synchronized int leased() {
        return leased;
    }

    /** @return the registrations the pool has made: one per buffer that a window was bound to */
    public synchronized long registrations() {
        return registrations;
    }

    /** @return the registrations the pool has dropped (at close, or after losing a race for a buffer's first use) */
    public synchronized long deregistrations() {
        return deregistrations;
    }

    /** @return the buffer sizes, ascending */
    public long[] classSizes() {
        return Arrays.stream(classes).mapToLong(c -> c.size).toArray();
    }

    /**
     * Deregisters every buffer's region and frees the slabs. Leased buffers become unusable
     * ({@link IllegalStateException} on access); the client closes its pool after its calls have ended (their windows
     * revoked). A slab with a buffer whose deregistration failed stays allocated: the device may still reach it.
     * Idempotent.
     */
    @Override
    public void close() {
        Slab[] all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = slabs;
            slabs = new Slab[0];
            for (SizeClass c : classes) {
                c.free.clear();
            }
            notifyAll();
        }
        for (Slab s : all) {
            boolean clean = true;
            for (Slot slot : s.slots) {
                ChunkRegistrar.Registration r;
                synchronized (this) {
                    r = slot.region;
                    slot.region = null;
                }
                if (r != null && !deregister(r)) {
                    clean = false;
                }
            }
            if (clean) {
                s.owner.close();
            }
        }
    }

    /** @return whether the region is gone (ibv_dereg_mr succeeded) */
    private boolean deregister(ChunkRegistrar.Registration r) {
        try {
            r.deregister();
            synchronized (this) {
                deregistrations++;
            }
            return true;
        } catch (RuntimeException e) {
            // the device may still reach the buffer: its slab's memory is left allocated
            LOG.warn(name + ": deregistering a pool buffer; its slab is left allocated", e);
            return false;
        }
    }

    @Override
    public String toString() {
        return name;
    }

    /** One buffer size and its free buffers. */
    private final class SizeClass {
        final long size;
        final long slabBytes;
        /** Guarded by the pool. */
        final ArrayDeque<Slot> free = new ArrayDeque<>();

        SizeClass(long size) {
            this.size = size;
            this.slabBytes = Math.max(size, RegisteredBufferPool.this.slabBytes / size * size);
        }
    }

    /** One allocation, cut into buffers of one class. */
    static final class Slab {
        final Arena owner;
        final MemorySegment memory;
        final SizeClass sizeClass;
        final long base;
        final long bytes;
        final Slot[] slots;

        Slab(Arena owner, MemorySegment memory, SizeClass sizeClass) {
            this.owner = owner;
            this.memory = memory;
            this.sizeClass = sizeClass;
            this.base = memory.address();
            this.bytes = memory.byteSize();
            this.slots = new Slot[(int) (bytes / sizeClass.size)];
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Slot(this, i * sizeClass.size);
            }
        }
    }

    /** One buffer of a slab. */
    static final class Slot {
        final Slab slab;
        final SizeClass sizeClass;
        final long offset;
        /** Guarded by the pool: the current lease, null while free. */
        RegisteredBuffer lease;
        /** Guarded by the pool: calls using the buffer now. */
        int uses;
        /** Guarded by the pool: the buffer's own region for windows, once registered ({@link #region}). */
        ChunkRegistrar.Registration region;

        Slot(Slab slab, long offset) {
            this.slab = slab;
            this.sizeClass = slab.sizeClass;
            this.offset = offset;
        }

        long size() {
            return sizeClass.size;
        }

        /** @return the whole buffer */
        MemorySegment memory() {
            return slab.memory.asSlice(offset, sizeClass.size);
        }
    }
}
