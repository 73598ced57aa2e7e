package org.panamardma.rpcrdma.server;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
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
 * <p><b>Bounded.</b> What is leased is bounded by the caller (the connection's pinned budget, taken before a lease).
 * What stays registered while nobody uses it is bounded here: at most {@code idleBytes}; a buffer given back beyond
 * that is deregistered. After {@link #close()} every buffer given back is deregistered.
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

    private final Registrar<R> registrar;
    private final long[] classes;
    private final ArrayDeque<R>[] free;
    private final long idleBytes;
    // guarded by this
    private long idle;
    private long registrations;
    private long deregistrations;
    private int leased;
    private boolean closed;

    /**
     * @param largest the largest lease (the largest call or reply): the top class holds it
     * @param idleBytes the most memory kept registered while no call uses it
     */
    @SuppressWarnings("unchecked")
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
        this.free = new ArrayDeque[sizes.length];
        for (int i = 0; i < free.length; i++) {
            free[i] = new ArrayDeque<>();
        }
        this.idleBytes = idleBytes;
    }

    private static long roundUpToPage(long n) {
        return (n + SMALLEST_CLASS - 1) / SMALLEST_CLASS * SMALLEST_CLASS;
    }

    /** One buffer leased for one transfer; {@link #release()} gives it back, once, from any thread. */
    final class Lease {
        private final R registration;
        private final int sizeClass;
        private final MemorySegment segment;
        private final AtomicBoolean released = new AtomicBoolean();

        private Lease(R registration, int sizeClass, long bytes) {
            this.registration = registration;
            this.sizeClass = sizeClass;
            this.segment = registrar.segment(registration).asSlice(0, bytes);
        }

        /** @return the registration the lease's memory belongs to (its region, to post from) */
        R registration() {
            return registration;
        }

        /** @return the leased bytes: at the start of the registration, as many as asked for */
        MemorySegment segment() {
            return segment;
        }

        /** Gives the buffer back; later calls do nothing. @return whether this call gave it back */
        boolean release() {
            if (!released.compareAndSet(false, true)) {
                return false;
            }
            giveBack(registration, sizeClass);
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
        R r;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the connection's buffer pool is closed");
            }
            r = free[c].pollFirst();
            if (r != null) {
                idle -= classes[c];
            }
            leased++;
        }
        if (r == null) {
            try {
                r = registrar.allocate(classes[c]);
            } catch (RdmaException | RuntimeException e) {
                synchronized (this) {
                    leased--;
                }
                throw e;
            }
            synchronized (this) {
                registrations++;
            }
        }
        return new Lease(r, c, bytes);
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

    private void giveBack(R r, int c) {
        synchronized (this) {
            leased--;
            if (!closed && idle + classes[c] <= idleBytes) {
                idle += classes[c];
                free[c].addFirst(r); // the most recently used first: its pages are the warmest
                return;
            }
            deregistrations++;
        }
        registrar.deregister(r);
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

    /** @return bytes registered and free */
    synchronized long idleBytes() {
        return idle;
    }

    /** @return the size classes */
    long[] classes() {
        return classes.clone();
    }

    /**
     * Deregisters the free buffers; buffers still leased are deregistered when given back (call only once the
     * device no longer uses them: after the queue pair is gone, or their transfers completed or flushed).
     */
    @Override
    public void close() {
        ArrayDeque<R> gone = new ArrayDeque<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (ArrayDeque<R> f : free) {
                gone.addAll(f);
                deregistrations += f.size();
                f.clear();
            }
            idle = 0;
        }
        for (R r : gone) {
            registrar.deregister(r);
        }
    }
}
