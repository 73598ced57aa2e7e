package org.panamardma.rpcrdma.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.panamardma.rpcrdma.memory.Slab.SizeClass;
import org.panamardma.verbs.RdmaException;

/**
 * Native buffers in size classes, cut from slabs, leased and given back so that steady-state traffic allocates and
 * registers nothing: the one pool of the client (its {@code RegisteredBufferPool}) and of each server connection
 * (chunk data). Both registrars are {@link LocalRegistrar}s: a pool never makes a remote key. The two sides differ in
 * what they register, and each has its factory:
 * <ul>
 *   <li>{@link #forReplies}: a server connection's RDMA Read sinks and Write sources. Each slab is registered whole
 *       when it is made, {@link LocalRights#LOCAL_WRITE} (as svcrdma caches its R/W contexts per transport,
 *       svc_rdma_get_rw_ctxt). Classes of 4 KiB by fours up to the largest transfer; a class up to
 *       {@value #PAIRED_UP_TO} bytes is a slab of two buffers kept for the connection's life (a reply's buffer comes
 *       back only when its Send completion is polled, which may be after the next call leased one of the same class:
 *       seen on rxe and siw, 1 and 2 registrations in 2,000 calls when the second was registered on demand), a
 *       larger one a buffer of its own kept while no more than {@code idleBytes} of them are free. What is leased
 *       is bounded by the caller (the connection's pinned budget, charged before a lease).</li>
 *   <li>{@link #forCalls}: the client's buffers, exposed to a server by a call only (a window bound for the call
 *       over the buffer's region, or a registration of the segment for the call: {@link Exposure}). A slab is plain
 *       memory; each buffer is registered on its first window ({@link #region}) as a region of its own,
 *       {@link LocalRights#WINDOW_BASE}, so that a window never reaches a neighbour (rxe checks a window's accesses
 *       against its region). At most {@code maxPinnedBytes} held; a lease finding none waits until its deadline
 *       and then throws {@link PoolExhaustedException}.</li>
 * </ul>
 *
 * <p><b>Leases</b> ({@link Lease}): the lease's {@link Lease#segment()} is exactly the size asked for, from the
 * smallest class that holds it. A buffer a call still uses ({@link #acquireUse}: a call given a segment of a leased
 * buffer) goes back to its class only when that call lets go ({@link #endUse}), so it is never leased again while
 * a server may reach it.
 *
 * <p><b>Close.</b> A server pool deregisters at close what no lease holds; a leased slab goes with its last lease
 * (the device may still use it until its transfer completed or was flushed). A client pool frees everything at close
 * (the client closes it after its calls have revoked their exposures): a lease's segment then throws
 * {@link IllegalStateException}, it cannot crash the JVM. A slab whose deregistration failed stays allocated.
 *
 * <p>Thread-safe: one monitor over the classes, taken once per lease, release and lookup; slabs are allocated and
 * registered outside it.
 */
public final class BufferPool implements AutoCloseable {
    /** The smallest class of a server pool: a page. */
    public static final long SMALLEST_CLASS = 4096;
    /** A server pool's classes up to this size are slabs of two buffers, kept until close. */
    public static final long PAIRED_UP_TO = 1 << 20;

    private final String name;
    private final LocalRegistrar registrar;
    private final LocalRights rights;
    /** Registered per slab when made (server), else per buffer on its first window (client). */
    private final boolean registerSlabs;
    /** At close, free leased slabs too (client) or leave them to their last lease (server). */
    private final boolean freeLeasedAtClose;

    private final SizeClass[] classes;
    private final long idleBytes;
    private final long maxPinnedBytes;
    /** By base address, for {@link #acquireUse}. */
    private final SlabIndex slabs = new SlabIndex();
    // guarded by this
    private long pinnedBytes;
    private long idle;
    private long registrations;
    private long deregistrations;
    private int leased;
    private boolean closed;

    private BufferPool(
            String name,
            LocalRegistrar registrar,
            LocalRights rights,
            boolean registerSlabs,
            boolean freeLeasedAtClose,
            SizeClass[] classes,
            long idleBytes,
            long maxPinnedBytes) {
        this.name = name;
        this.registrar = registrar;
        this.rights = rights;
        this.registerSlabs = registerSlabs;
        this.freeLeasedAtClose = freeLeasedAtClose;
        this.classes = classes;
        this.idleBytes = idleBytes;
        this.maxPinnedBytes = maxPinnedBytes;
    }

    /**
     * A server connection's pool: slabs registered whole, {@link LocalRights#LOCAL_WRITE}.
     *
     * @param name names the pool in messages
     * @param registrar registers the slabs in the connection's protection domain
     * @param largest the largest lease (the largest call or reply): the top class holds it
     * @param idleBytes the most memory of classes above {@link #PAIRED_UP_TO} kept registered while no call uses it
     * @return the pool
     */
    public static BufferPool forReplies(String name, LocalRegistrar registrar, long largest, long idleBytes) {
        if (idleBytes < 0) {
            throw new IllegalArgumentException("idle bytes " + idleBytes);
        }
        return new BufferPool(
                name,
                registrar,
                LocalRights.LOCAL_WRITE,
                true,
                false,
                SizeClass.byFours(SMALLEST_CLASS, largest, PAIRED_UP_TO),
                idleBytes,
                Long.MAX_VALUE);
    }

    /**
     * A client's pool: slabs of plain memory, each buffer registered as a region of its own on its first window.
     *
     * @param name names the pool in messages
     * @param registrar registers buffers as regions of their own, {@link LocalRights#WINDOW_BASE}
     * @param classSizes the buffer sizes, strictly ascending, each positive and a multiple of 64
     * @param slabBytes bytes per slab (a class larger than this gets one buffer per slab)
     * @param maxPinnedBytes the most bytes the pool may hold
     * @return the pool
     */
    public static BufferPool forCalls(
            String name, LocalRegistrar registrar, long[] classSizes, long slabBytes, long maxPinnedBytes) {
        if (maxPinnedBytes < 0) {
            throw new IllegalArgumentException("max pinned bytes " + maxPinnedBytes);
        }
        return new BufferPool(
                name,
                registrar,
                LocalRights.WINDOW_BASE,
                false,
                true,
                SizeClass.of(classSizes, slabBytes),
                0,
                maxPinnedBytes);
    }

    /**
     * Leases a buffer of at least {@code size} bytes without waiting.
     *
     * @param size the bytes wanted
     * @return the lease, its segment {@code size} bytes long
     * @throws IllegalArgumentException if {@code size} is not positive or above the largest class
     * @throws PoolExhaustedException if no buffer is free and the pool may not hold more
     * @throws IllegalStateException if the pool is closed
     * @throws RdmaException if registering a new slab failed
     */
    public Lease lease(long size) throws RdmaException {
        try {
            return lease(size, 0);
        } catch (InterruptedException e) { // cannot happen without a wait
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Leases a buffer of at least {@code size} bytes, waiting up to {@code waitNanos} for one to be given back when
     * the pool is at its maximum of pinned bytes.
     *
     * @param size the bytes wanted
     * @param waitNanos the longest wait
     * @return the lease, its segment {@code size} bytes long
     * @throws PoolExhaustedException if none came free in time
     * @throws InterruptedException if interrupted while waiting
     * @throws RdmaException if registering a new slab failed
     */
    public Lease lease(long size, long waitNanos) throws RdmaException, InterruptedException {
        SizeClass c = classFor(size);
        long deadline = System.nanoTime() + waitNanos;
        long slab;
        synchronized (this) {
            while (true) {
                checkOpen();
                Slot slot = c.free.poll();
                if (slot != null) {
                    if (!c.kept) {
                        idle -= c.size;
                    }
                    return leaseOf(slot, size);
                }
                slab = Math.min(c.slabBytes, (maxPinnedBytes - pinnedBytes) / c.size * c.size);
                if (slab > 0) {
                    pinnedBytes += slab; // reserved now, allocated and registered outside the monitor
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new PoolExhaustedException(name + ": no free buffer of " + c.size + " bytes for " + size
                            + " asked; " + leased + " buffers leased, " + pinnedBytes + " of at most "
                            + maxPinnedBytes + " bytes pinned");
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
        return grow(c, slab, size);
    }

    /** Makes a slab of {@code bytes} (already counted as pinned) for {@code c} and leases its first buffer. */
    private Lease grow(SizeClass c, long bytes, long size) throws RdmaException {
        Arena owner = Arena.ofShared();
        MemorySegment memory;
        Registration whole = null;
        try {
            // page-aligned: a buffer of 4 KiB or more starts on a page of its own, and registering it pins no page
            // of a neighbour's
            memory = owner.allocate(bytes, 4096);
            if (registerSlabs) {
                whole = registrar.register(memory, rights);
            }
        } catch (RdmaException | RuntimeException | Error e) {
            owner.close();
            synchronized (this) {
                pinnedBytes -= bytes;
                notifyAll();
            }
            throw e;
        }
        Slab slab = new Slab(owner, memory, c, whole);
        synchronized (this) {
            if (whole != null) {
                registrations++;
            }
            if (!closed) {
                slabs.add(slab);
                for (int i = 1; i < slab.slots.length; i++) {
                    c.free.addLast(slab.slots[i]);
                }
                notifyAll();
                return leaseOf(slab.slots[0], size);
            }
            pinnedBytes -= bytes; // closed while it was made: nobody may use it
            slab.dropped = true;
        }
        free(slab);
        throw new IllegalStateException(name + " is closed");
    }

    // guarded by this
    private Lease leaseOf(Slot slot, long size) {
        Lease l = new Lease(this, slot, slot.buffer().asSlice(0, size));
        slot.lease = l;
        slot.slab.leased++;
        leased++;
        return l;
    }

    private SizeClass classFor(long size) {
        return SizeClass.holding(classes, size, name);
    }

    /**
     * @param size a number of bytes
     * @return whether a buffer of {@code size} bytes has a class
     */
    public boolean fits(long size) {
        return size > 0 && size <= classes[classes.length - 1].size;
    }

    /** @return whether this call gave the lease back (false: it was given back before) */
    boolean release(Lease l) {
        Slab gone;
        synchronized (this) {
            if (l.released) {
                return false;
            }
            l.released = true;
            if (l.slot().uses > 0) {
                return true; // goes back when the last call using it lets go (endUse)
            }
            gone = giveBack(l.slot());
        }
        free(gone);
        return true;
    }

    /** The buffer of {@code slot} is free: back to its class, or its slab goes; guarded by this. */
    private Slab giveBack(Slot slot) {
        Slab slab = slot.slab;
        SizeClass c = slab.sizeClass;
        slot.lease = null;
        slab.leased--;
        leased--;
        notifyAll();
        if (!closed && (c.kept || idle + c.size <= idleBytes)) {
            if (!c.kept) {
                idle += c.size;
            }
            c.free.push(slot); // LIFO: the buffer most recently used is the likeliest in cache
            return null;
        }
        if (slab.leased > 0 || slab.dropped) {
            return null; // after close, a slab goes with its last leased buffer
        }
        remove(slab);
        return slab;
    }

    /** Takes {@code slab} out of the pool; {@link #free} then deregisters it. Guarded by this. */
    private void remove(Slab slab) {
        slab.dropped = true;
        pinnedBytes -= slab.bytes;
        slabs.remove(slab);
    }

    /** Deregisters {@code slab}'s registrations (counted) and frees its memory, unless a deregistration failed. */
    private void free(Slab slab) {
        if (slab != null) {
            slab.free(this, this::deregistered, name);
        }
    }

    private synchronized void deregistered() {
        deregistrations++;
    }

    /**
     * The region a window over {@code slot}'s buffer is bound to, or that its transfers are posted from: the slab's
     * ({@link #forReplies}), or the buffer's own, registered on first use and kept until the pool closes
     * ({@link #forCalls}).
     *
     * @param slot a buffer of this pool
     * @return its registration (local rights only)
     * @throws RdmaException if registering failed
     * @throws IllegalStateException if the pool is closed
     */
    public Registration region(Slot slot) throws RdmaException {
        if (slot.slab.whole != null) {
            return slot.slab.whole;
        }
        synchronized (this) {
            checkOpen();
            if (slot.region != null) {
                return slot.region;
            }
        }
        Registration r = registrar.register(slot.buffer(), rights);
        synchronized (this) {
            registrations++;
            if (slot.region == null && !closed && !slot.slab.dropped) {
                slot.region = r;
                return r;
            }
        }
        Slab.deregister(r, this::deregistered, name); // raced with another call's first use, or the close
        synchronized (this) {
            checkOpen();
            return slot.region;
        }
    }

    /**
     * For the call path: if {@code segment} lies in a leased buffer of this pool, marks that buffer in use by a call
     * (a release meanwhile takes effect at {@link #endUse}) and returns it.
     *
     * @param segment memory handed to a call
     * @return the buffer's slot, or {@code null} if {@code segment} is not pool memory
     * @throws IllegalStateException if the buffer was released (use after release) or the pool is closed
     * @throws IllegalArgumentException if the segment spans two buffers
     */
    public Slot acquireUse(MemorySegment segment) {
        Slot slot = slabs.slotHolding(segment, name);
        if (slot == null) {
            return null;
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

    /**
     * The call that {@link #acquireUse acquired} {@code slot} lets go of it.
     *
     * @param slot what {@link #acquireUse} returned
     */
    public void endUse(Slot slot) {
        Slab gone = null;
        synchronized (this) {
            if (slot.uses <= 0) {
                throw new IllegalStateException(name + ": buffer use ended more often than it began");
            }
            slot.uses--;
            if (slot.uses == 0 && slot.lease != null && slot.lease.released) {
                gone = giveBack(slot);
            }
        }
        free(gone);
    }

    /**
     * @param address an address
     * @return the buffer {@code address} lies in, or null (for tests and diagnostics: no lease is checked)
     */
    public Slot slotAt(long address) {
        return slabs.slotAt(address);
    }

    /** Throws unless {@code l} is leased and its memory still the pool's; see {@link Lease#segment()}. */
    synchronized void checkLeased(Lease l) {
        if (l.released) {
            throw new IllegalStateException(name + ": " + l + " was released");
        }
        if (l.slot().slab.dropped) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    /** @return bytes of the pool's slabs */
    public synchronized long pinnedBytes() {
        return pinnedBytes;
    }

    /** @return the most bytes the pool may hold */
    public long maxPinnedBytes() {
        return maxPinnedBytes;
    }

    /** @return buffers leased and not yet given back */
    public synchronized int leased() {
        return leased;
    }

    /** @return free bytes of buffers kept within {@code idleBytes} (classes above {@link #PAIRED_UP_TO}) */
    public synchronized long idleBytes() {
        return idle;
    }

    /** @return the registrations ({@code ibv_reg_mr}) the pool has made */
    public synchronized long registrations() {
        return registrations;
    }

    /** @return the deregistrations ({@code ibv_dereg_mr}) the pool has made */
    public synchronized long deregistrations() {
        return deregistrations;
    }

    /** @return the buffer sizes, ascending */
    public long[] classSizes() {
        return Arrays.stream(classes).mapToLong(c -> c.size).toArray();
    }

    /** @return the slabs now (for tests) */
    List<Slab> slabs() {
        return slabs.all();
    }

    /**
     * Closes: every slab no lease holds is deregistered and freed; a leased one too in a client's pool, or with its
     * last lease in a server's (see the class comment). Idempotent.
     */
    @Override
    public void close() {
        List<Slab> gone = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (SizeClass c : classes) {
                c.free.clear();
            }
            idle = 0;
            for (Slab s : slabs.all()) {
                if (freeLeasedAtClose || s.leased == 0) {
                    gone.add(s);
                }
            }
            for (Slab s : gone) {
                remove(s);
            }
            notifyAll();
        }
        gone.forEach(this::free);
    }

    @Override
    public String toString() {
        return name;
    }
}
