package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.RdmaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Native buffers registered once with a client's protection domain, leased by the caller and by the client itself
 * (Reply chunks, bounce buffers for heap data), so that calls in steady state make no {@code ibv_reg_mr} /
 * {@code ibv_dereg_mr}.
 *
 * <p><b>Size classes.</b> A request is served from the smallest class at least as large; more than the largest
 * class is refused ({@link IllegalArgumentException}). Each class grows by slabs: one registration of
 * {@code slabBytes} (or of one buffer, when the class is larger), cut into buffers of the class size. A slab stays
 * registered until the pool closes: memory is registered at warm-up, never again per call.
 *
 * <p><b>Bounded.</b> The pool never pins more than {@code maxPinnedBytes}: an allocation finding its class empty
 * and no room for another slab fails at once ({@link #allocate(long)}) or waits for a release until its deadline
 * ({@link #allocate(long, Duration)}), then throws {@link BufferPoolExhaustedException}.
 *
 * <p><b>Rights.</b> The buffers are registered LOCAL_WRITE, REMOTE_READ and REMOTE_WRITE, so one buffer can be a
 * Read chunk source (RFC 8166 section 3.4.5) or a Write or Reply chunk sink (section 3.4.6). Unlike a per-call
 * registration, the rkey outlives the call that advertised it: a server that used a handle after the call ended
 * (which RFC 8166 section 3.4.3 gives it no right to) would reach the pool buffer, never memory the JVM freed or
 * reused, since a slab's memory is owned by its registration and freed only after {@code ibv_dereg_mr}.
 *
 * <p><b>Safety.</b> Leases are handles ({@link RegisteredBuffer}): a double release and a use of a released
 * buffer throw {@link IllegalStateException}. A buffer still used by a call is returned to its class only once that
 * call lets go of it. After {@link #close()} leased segments are closed too (their memory is freed with the
 * registration): touching one throws {@link IllegalStateException}, it cannot crash the JVM.
 *
 * <p>Thread-safe: one monitor guards the classes, taken once per allocation, release and lookup; the registration
 * of a new slab happens outside it.
 */
public final class RegisteredBufferPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RegisteredBufferPool.class);
    /** A pool buffer may be a Read chunk source and a Write or Reply chunk sink. */
    static final Set<Access> ACCESS = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
    /** 4 KiB (a Reply chunk of the default inline size) to 1 MiB (the largest NFS rsize/wsize), by fours. */
    public static final long[] DEFAULT_CLASSES = {4096, 16384, 65536, 262144, 1048576};
    /** The default slab: 1 MiB per registration. */
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
    private int leased;
    private boolean closed;

    /**
     * @param name names the pool in messages
     * @param registrar registers the slabs
     * @param classSizes the buffer sizes, strictly ascending, each positive and a multiple of 64
     * @param slabBytes bytes per registration of a class smaller than this
     * @param maxPinnedBytes the most bytes the pool registers, 0 for a pool that hands out nothing
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
     * @throws BufferPoolExhaustedException if no buffer is free and the pool may not pin more
     * @throws RdmaException if registering a new slab failed (e.g. ENOMEM: RLIMIT_MEMLOCK)
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

    /** Registers a slab of {@code bytes} (already counted in {@link #pinnedBytes}) for class {@code c}. */
    private void grow(SizeClass c, long bytes) throws RdmaException {
        ChunkRegistrar.Registration r;
        try {
            r = registrar.allocate(bytes, ACCESS);
        } catch (RdmaException | RuntimeException | Error e) {
            synchronized (this) {
                pinnedBytes -= bytes;
                notifyAll();
            }
            throw e;
        }
        synchronized (this) {
            if (closed) {
                pinnedBytes -= bytes;
                deregister(r);
                checkOpen();
            }
            registrations++;
            Slab slab = new Slab(r, c);
            Slab[] grown = Arrays.copyOf(slabs, slabs.length + 1);
            grown[grown.length - 1] = slab;
            Arrays.sort(grown, (a, b) -> Long.compareUnsigned(a.base, b.base));
            slabs = grown;
            c.free.addAll(Arrays.asList(slab.slots));
            notifyAll();
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
        RegisteredBuffer b = new RegisteredBuffer(this, slot, slot.slab.registration.segment()
                .asSlice(slot.offset, size));
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
        if (slab == null || !slab.registration.segment().scope().equals(segment.scope())) {
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

    /** @return bytes registered by the pool */
    public synchronized long pinnedBytes() {
        return pinnedBytes;
    }

    /** @return the most bytes the pool may register */
    public long maxPinnedBytes() {
        return maxPinnedBytes;
    }

    /** @return buffers leased and not yet returned */
    public synchronized int leased() {
        return leased;
    }

    /** @return the registrations the pool has made (one per slab) */
    public synchronized long registrations() {
        return registrations;
    }

    /** @return the buffer sizes, ascending */
    public long[] classSizes() {
        return Arrays.stream(classes).mapToLong(c -> c.size).toArray();
    }

    /**
     * Deregisters every slab and frees its memory. Leased buffers become unusable ({@link IllegalStateException}
     * on access); the client closes its pool after its calls have ended. Idempotent.
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
            deregister(s.registration);
        }
    }

    private void deregister(ChunkRegistrar.Registration r) {
        try {
            r.deregister();
        } catch (RuntimeException e) {
            // MemoryRegion leaves the slab's memory allocated when ibv_dereg_mr fails: nothing else to do
            LOG.warn(name + ": deregistering a pool slab", e);
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

    /** One registration, cut into buffers of one class. */
    static final class Slab {
        final ChunkRegistrar.Registration registration;
        final SizeClass sizeClass;
        final long base;
        final long bytes;
        final Slot[] slots;

        Slab(ChunkRegistrar.Registration registration, SizeClass sizeClass) {
            this.registration = registration;
            this.sizeClass = sizeClass;
            this.base = registration.segment().address();
            this.bytes = registration.segment().byteSize();
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

        Slot(Slab slab, long offset) {
            this.slab = slab;
            this.sizeClass = slab.sizeClass;
            this.offset = offset;
        }

        long size() {
            return sizeClass.size;
        }

        /** @return the key the server addresses this buffer with */
        int rkey() {
            return slab.registration.rkey();
        }
    }
}
