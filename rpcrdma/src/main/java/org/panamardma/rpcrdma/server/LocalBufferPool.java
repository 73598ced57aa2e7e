package org.panamardma.rpcrdma.server;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.panamardma.verbs.RdmaException;

/**
 * A connection's registered memory for chunk data: the sinks of RDMA Reads (Read chunks) and the sources of RDMA
 * Writes (Write list items, Reply chunks). Registered {@code LOCAL_WRITE} only: the server's memory is never
 * exposed to the peer (the client reaches none of it; RFC 8166 section 3.4.3 gives the requester's handles only).
 * As svcrdma caches its R/W contexts per transport (svc_rdma_get_rw_ctxt), a buffer goes back to the pool when its
 * transfer is done and serves the next call, so that steady-state traffic makes no {@code ibv_reg_mr} or
 * {@code ibv_dereg_mr}.
 *
 * <p><b>Size classes</b> from 4 KiB by factors of 4 up to the largest transfer; a lease gets a buffer of the
 * smallest class that holds it (the lease's {@link Lease#segment()} is exactly the size asked for).
 *
 * <p><b>Two at a time.</b> A class up to {@value #PAIRED_UP_TO} bytes is registered two buffers at once (one
 * registration, a slab of two) and kept for the connection's life: a reply's buffer comes back only when the poller
 * has seen its Send complete, which may be after the client's next call arrived and leased a buffer of the same
 * class, so even one call at a time needs two buffers of a class now and then. Registering the second with the
 * first makes that overlap cost nothing after a class's first use, rather than a registration at a moment the
 * timing picks (seen on rxe and siw: 1 and 2 registrations in 2,000 calls). The classes of NFS sizes (4 KiB to
 * 1 MiB) then hold 2 x 1.3 MiB at most.
 *
 * <p><b>Bounded.</b> What is leased is bounded by the caller (the connection's pinned budget, taken before a lease).
 * What stays registered while nobody uses it is bounded here: the paired classes, and at most {@code idleBytes} of
 * larger buffers; a larger buffer given back beyond that is deregistered. After {@link #close()} every buffer given back is deregistered.
 *
 * <p>Thread-safe: one monitor over the free lists; registration and deregistration happen outside it.
 *
 * @param <R> what the registrar makes (a {@link org.panamardma.verbs.MemoryRegion} on a device)
 */
final class LocalBufferPool<R> implements AutoCloseable {
    /** Makes and unmakes the pool's registrations: the device's, or a host test's. */
    interface Registrar<R> {
        /** Registers {@code size} bytes of fresh native memory, LOCAL_WRITE only. */
        R allocate(long size) throws RdmaException;

        MemorySegment segment(R registration);

        /** Deregisters and frees. */
        void deregister(R registration);
    }

    static final long SMALLEST_CLASS = 4096;
    /** Classes up to this size are registered two buffers at a time and kept until close. */
    static final long PAIRED_UP_TO = 1 << 20;

    /** One registration of {@code buffers} buffers of one class, {@code leased} of them leased. Guarded by the pool. */
    private final class Slab {
        final R registration;
        final int buffers;
        int leased;

        Slab(R registration, int buffers) {
            this.registration = registration;
            this.buffers = buffers;
        }
    }

    /** A free buffer: its slab and where it starts in the slab's registration. */
    private final class Free {
        final Slab slab;
        final long offset;

        Free(Slab slab, long offset) {
            this.slab = slab;
            this.offset = offset;
        }
    }

    private final Registrar<R> registrar;
    private final long[] classes;
    private final List<ArrayDeque<Free>> free = new ArrayList<>();
    private final long idleBytes;
    /** Every registration not yet deregistered. Guarded by this. */
    private final List<Slab> slabs = new ArrayList<>();
    // guarded by this
    private long idle;
    private long registrations;
    private long deregistrations;
    private int leased;
    private boolean closed;

    /**
     * @param largest the largest lease (the largest call or reply): the top class holds it
     * @param idleBytes the most memory of classes above {@link #PAIRED_UP_TO} kept registered while no call uses it
     */
    LocalBufferPool(Registrar<R> registrar, long largest, long idleBytes) {
        if (largest <= 0 || idleBytes < 0) {
            throw new IllegalArgumentException("largest " + largest + ", idle bytes " + idleBytes);
        }
        this.registrar = registrar;
        long[] sizes = new long[0];
        long size = SMALLEST_CLASS;
        while (true) {
            sizes = Arrays.copyOf(sizes, sizes.length + 1);
            sizes[sizes.length - 1] = size;
            if (size >= largest) {
                break;
            }
            size = Math.min(size * 4, roundUpToPage(largest));
        }
        this.classes = sizes;
        for (int i = 0; i < sizes.length; i++) {
            free.add(new ArrayDeque<>());
        }
        this.idleBytes = idleBytes;
    }

    private static long roundUpToPage(long n) {
        return (n + SMALLEST_CLASS - 1) / SMALLEST_CLASS * SMALLEST_CLASS;
    }

    /** One buffer leased for one transfer; {@link #release()} gives it back, once, from any thread. */
    final class Lease {
        private final Slab slab;
        private final long offset;
        private final int sizeClass;
        private final MemorySegment segment;
        private final AtomicBoolean released = new AtomicBoolean();

        private Lease(Slab slab, long offset, int sizeClass, long bytes) {
            this.slab = slab;
            this.offset = offset;
            this.sizeClass = sizeClass;
            this.segment = registrar.segment(slab.registration).asSlice(offset, bytes);
        }

        /** @return the registration the leased memory belongs to (its region, to post from) */
        R registration() {
            return slab.registration;
        }

        /** @return where in {@link #registration()} the leased bytes start */
        long offset() {
            return offset;
        }

        /** @return the leased bytes, as many as asked for */
        MemorySegment segment() {
            return segment;
        }

        /** Gives the buffer back; later calls do nothing. @return whether this call gave it back */
        boolean release() {
            if (!released.compareAndSet(false, true)) {
                return false;
            }
            giveBack(slab, offset, sizeClass);
            return true;
        }
    }

    /**
     * @param bytes at least 1, at most the largest class
     * @return a buffer of at least {@code bytes}, registered now only if the pool had none free of its class
     * @throws IllegalStateException if the pool is closed
     */
    Lease lease(long bytes) throws RdmaException {
        int c = classOf(bytes);
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the connection's buffer pool is closed");
            }
            Free f = free.get(c).pollFirst();
            leased++;
            if (f != null) {
                if (f.slab.buffers == 1) {
                    idle -= classes[c];
                }
                f.slab.leased++;
                return new Lease(f.slab, f.offset, c, bytes);
            }
        }
        int buffers = classes[c] <= PAIRED_UP_TO ? 2 : 1;
        R r;
        try {
            r = registrar.allocate(classes[c] * buffers);
        } catch (RdmaException | RuntimeException e) {
            synchronized (this) {
                leased--;
            }
            throw e;
        }
        Slab slab = new Slab(r, buffers);
        slab.leased = 1;
        boolean lateClose;
        synchronized (this) {
            registrations++;
            lateClose = closed;
            if (!lateClose) {
                slabs.add(slab);
                for (int i = 1; i < buffers; i++) {
                    free.get(c).addLast(new Free(slab, classes[c] * i));
                }
            }
        }
        if (lateClose) { // closed while registering: nobody may use it
            synchronized (this) {
                leased--;
                deregistrations++;
            }
            registrar.deregister(r);
            throw new IllegalStateException("the connection's buffer pool is closed");
        }
        return new Lease(slab, 0, c, bytes);
    }

    private int classOf(long bytes) {
        if (bytes <= 0 || bytes > classes[classes.length - 1]) {
            throw new IllegalArgumentException("a lease of " + bytes + " bytes; classes up to "
                    + classes[classes.length - 1]);
        }
        int c = 0;
        while (classes[c] < bytes) {
            c++;
        }
        return c;
    }

    private void giveBack(Slab slab, long offset, int c) {
        synchronized (this) {
            leased--;
            slab.leased--;
            if (!closed && (slab.buffers > 1 || idle + classes[c] <= idleBytes)) {
                if (slab.buffers == 1) {
                    idle += classes[c];
                }
                free.get(c).addFirst(new Free(slab, offset)); // the most recently used first: its pages are warmest
                return;
            }
            if (slab.leased > 0 || !slabs.remove(slab)) {
                return; // after close, a slab goes with its last leased buffer
            }
            deregistrations++;
        }
        registrar.deregister(slab.registration);
    }

    /** @return the registrations the pool made so far */
    synchronized long registrations() {
        return registrations;
    }

    /** @return the deregistrations the pool made so far */
    synchronized long deregistrations() {
        return deregistrations;
    }

    /** @return buffers leased and not given back */
    synchronized int leased() {
        return leased;
    }

    /** @return bytes of single-buffer registrations kept free (the paired classes are kept whatever this bound) */
    synchronized long idleBytes() {
        return idle;
    }

    /** @return the size classes */
    long[] classes() {
        return classes.clone();
    }

    /**
     * Deregisters the registrations no lease holds; the others go when their last lease is given back (call only
     * once the device no longer uses them: after the queue pair is gone, or their transfers completed or flushed).
     */
    @Override
    public void close() {
        List<R> gone = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            free.forEach(ArrayDeque::clear);
            idle = 0;
            for (Iterator<Slab> it = slabs.iterator(); it.hasNext(); ) {
                Slab slab = it.next();
                if (slab.leased == 0) {
                    it.remove();
                    gone.add(slab.registration);
                    deregistrations++;
                }
            }
        }
        for (R r : gone) {
            registrar.deregister(r);
        }
    }
}
