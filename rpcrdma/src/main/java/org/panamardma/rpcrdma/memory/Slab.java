package org.panamardma.rpcrdma.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One allocation of a {@link BufferPool}, cut into buffers of one class; the pool guards its mutable fields. */
final class Slab {
    private static final Logger LOG = LoggerFactory.getLogger(Slab.class);
    final Arena owner;
    final MemorySegment memory;
    final SizeClass sizeClass;
    final long base;
    final long bytes;
    final Slot[] slots;
    /** The slab's registration ({@link BufferPool#forReplies}), or null. */
    final Registration whole;
    /** Buffers leased. */
    int leased;
    /** Out of the pool, deregistered or about to be. */
    boolean dropped;

    Slab(Arena owner, MemorySegment memory, SizeClass sizeClass, Registration whole) {
        this.owner = owner;
        this.memory = memory;
        this.sizeClass = sizeClass;
        this.whole = whole;
        this.base = memory.address();
        this.bytes = memory.byteSize();
        this.slots = new Slot[(int) (bytes / sizeClass.size)];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot(this, i * sizeClass.size);
        }
    }

    /**
     * Deregisters the slab's registration and its buffers' regions ({@code deregistered} counts each), then frees its
     * memory, unless a deregistration failed: the device may still reach it, so it is left allocated.
     *
     * @param pool the monitor guarding the buffers' regions
     */
    void free(Object pool, Runnable deregistered, String name) {
        boolean clean = deregister(whole, deregistered, name);
        for (Slot slot : slots) {
            Registration r;
            synchronized (pool) {
                r = slot.region;
                slot.region = null;
            }
            clean &= deregister(r, deregistered, name);
        }
        if (clean) {
            owner.close();
        }
    }

    /** @return whether {@code r} is gone (ibv_dereg_mr succeeded, or there was none) */
    static boolean deregister(Registration r, Runnable deregistered, String name) {
        if (r == null) {
            return true;
        }
        try {
            r.deregister();
            deregistered.run();
            return true;
        } catch (RuntimeException e) {
            LOG.warn(name + ": deregistering pool memory; its slab is left allocated", e);
            return false;
        }
    }

    /** One buffer size of a pool and its free buffers. */
    static final class SizeClass {
        final long size;
        final long slabBytes;
        /** Kept free until close whatever the pool's idle bound says. */
        final boolean kept;
        /** Guarded by the pool. */
        final ArrayDeque<Slot> free = new ArrayDeque<>();

        SizeClass(long size, int buffersPerSlab, boolean kept) {
            this.size = size;
            this.slabBytes = size * buffersPerSlab;
            this.kept = kept;
        }

        /**
         * A server's classes: from {@code smallest} by fours, the last holding {@code largest} (rounded up to a page);
         * those up to {@code pairedUpTo} two buffers a slab and kept, larger ones a buffer each. Above the first, each
         * class by fours is followed by one a page ({@code smallest}) larger: a call assembled with its Read chunk is
         * the chunk's power-of-four size plus the call's header (an NFS WRITE of 256 KiB: 256 KiB and a few hundred
         * bytes), which would otherwise take the next class, four times its size.
         */
        static SizeClass[] byFours(long smallest, long largest, long pairedUpTo) {
            if (largest <= 0) {
                throw new IllegalArgumentException("largest " + largest);
            }
            long top = (largest + smallest - 1) / smallest * smallest;
            List<SizeClass> sizes = new ArrayList<>();
            long size = smallest;
            while (true) {
                add(sizes, size, pairedUpTo);
                if (size >= largest) {
                    return sizes.toArray(SizeClass[]::new);
                }
                if (size > smallest && size + smallest < top) {
                    add(sizes, size + smallest, pairedUpTo);
                }
                size = Math.min(size * 4, top);
            }
        }

        private static void add(List<SizeClass> sizes, long size, long pairedUpTo) {
            boolean kept = size <= pairedUpTo;
            sizes.add(new SizeClass(size, kept ? 2 : 1, kept));
        }

        /** @return the smallest of {@code classes} (ascending) holding {@code size} bytes */
        static SizeClass holding(SizeClass[] classes, long size, String pool) {
            if (size <= 0) {
                throw new IllegalArgumentException(pool + ": a buffer size must be positive: " + size);
            }
            for (SizeClass c : classes) {
                if (c.size >= size) {
                    return c;
                }
            }
            throw new IllegalArgumentException(pool + ": " + size + " bytes is more than the largest buffer class ("
                    + classes[classes.length - 1].size + ")");
        }

        /** A client's classes, all kept: as many buffers a slab as {@code slabBytes} holds, at least one. */
        static SizeClass[] of(long[] classSizes, long slabBytes) {
            if (classSizes.length == 0 || slabBytes <= 0) {
                throw new IllegalArgumentException(
                        "size classes " + Arrays.toString(classSizes) + ", slab bytes " + slabBytes);
            }
            SizeClass[] classes = new SizeClass[classSizes.length];
            for (int i = 0; i < classSizes.length; i++) {
                if (classSizes[i] <= 0 || classSizes[i] % 64 != 0 || (i > 0 && classSizes[i] <= classSizes[i - 1])) {
                    throw new IllegalArgumentException("size classes must be positive multiples of 64, strictly "
                            + "ascending: " + Arrays.toString(classSizes));
                }
                classes[i] = new SizeClass(classSizes[i], (int) Math.max(1, slabBytes / classSizes[i]), true);
            }
            return classes;
        }
    }
}
