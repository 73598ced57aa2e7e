package org.panamardma.nfs.server;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The native memory READ and WRITE data passes through between the file and the transport: a fixed set of
 * buffers allocated once, so what clients can make the server hold is bounded by the configuration (slots times
 * sizes), whatever they ask. A READ's data is read from the file into a buffer and leaves from there (an RDMA
 * Write from that memory, registered in place, or a TCP write), then the buffer comes back
 * ({@link org.panamardma.oncrpc.ReplyResources}).
 *
 * <p>A buffer can stay out as long as its reply takes to leave, which a client that does not read its socket makes
 * long (until the transport's write timeout gives up on it). So no one client (one address, whatever its number of
 * connections) holds more than half of each size at once, and a call that finds no buffer it may take waits at most
 * its deadline, then fails with {@link Exhausted} (the procedure answers NFS3ERR_JUKEBOX: try again later), never
 * blocking its thread for good.
 */
final class IoBuffers implements AutoCloseable {
    /** Buffers of this size serve small transfers (4 KiB pages of fio, directory-sized reads). */
    static final int SMALL = 64 << 10;

    /** No buffer could be had within the deadline. */
    static final class Exhausted extends Exception {
        private static final long serialVersionUID = 1L;

        Exhausted(String message) {
            super(message, null, false, false);
        }
    }

    private final Arena arena = Arena.ofShared();
    private final int largeSize;
    private final int smallCount;
    private final int largeCount;
    private final int smallShare;
    private final int largeShare;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition returned = lock.newCondition();
    private final ArrayDeque<MemorySegment> small = new ArrayDeque<>();
    private final ArrayDeque<MemorySegment> large = new ArrayDeque<>();
    /** Buffers out per client: [small, large]; an entry goes when its client holds none. */
    private final Map<Object, int[]> out = new HashMap<>();

    /**
     * @param largeSize the size of the large buffers: the largest READ or WRITE (FSINFO rtmax, wtmax)
     * @param smallCount how many buffers of {@value #SMALL} bytes
     * @param largeCount how many buffers of {@code largeSize} bytes
     */
    IoBuffers(int largeSize, int smallCount, int largeCount) {
        this.largeSize = largeSize;
        this.smallCount = smallCount;
        this.largeCount = largeCount;
        this.smallShare = Math.max(1, smallCount / 2);
        this.largeShare = Math.max(1, largeCount / 2);
        for (int i = 0; i < smallCount; i++) {
            small.add(arena.allocate(SMALL, 4096));
        }
        for (int i = 0; i < largeCount; i++) {
            large.add(arena.allocate(largeSize, 4096));
        }
    }

    /** {@return the bytes allocated, all of it, for good} */
    long footprint() {
        return (long) smallCount * SMALL + (long) largeCount * largeSize;
    }

    /** {@return how many buffers of each size one client may hold at once: [small, large]} */
    int[] shares() {
        return new int[] {smallShare, largeShare};
    }

    /** A buffer lent out; closing it (once, from any thread) gives it back. */
    final class Lease implements AutoCloseable {
        private final MemorySegment buffer;
        private final boolean isLarge;
        private final Object client;
        private final AtomicBoolean returnedOnce = new AtomicBoolean();

        private Lease(MemorySegment buffer, boolean isLarge, Object client) {
            this.buffer = buffer;
            this.isLarge = isLarge;
            this.client = client;
        }

        /** {@return the whole buffer} */
        MemorySegment segment() {
            return buffer;
        }

        @Override
        public void close() {
            if (!returnedOnce.compareAndSet(false, true)) {
                return;
            }
            lock.lock();
            try {
                (isLarge ? large : small).push(buffer);
                int[] counts = out.get(client);
                counts[isLarge ? 1 : 0]--;
                if (counts[0] == 0 && counts[1] == 0) {
                    out.remove(client);
                }
                returned.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Lends {@code client} a buffer of at least {@code size} bytes: a small one if it fits and one is free, else a
     * large one; waiting up to {@code wait} for one it may take.
     *
     * @param client the client's key (its address): whose share the buffer counts against
     * @throws IllegalArgumentException if {@code size} exceeds the large size
     * @throws Exhausted if none could be had within {@code wait}
     */
    Lease take(long size, Object client, Duration wait) throws Exhausted, InterruptedException {
        if (size > largeSize) {
            throw new IllegalArgumentException(size + " bytes exceed the largest buffer of " + largeSize);
        }
        long deadline = System.nanoTime() + wait.toNanos();
        lock.lockInterruptibly();
        try {
            while (true) {
                int[] counts = out.getOrDefault(client, new int[2]);
                if (size <= SMALL && !small.isEmpty() && counts[0] < smallShare) {
                    return lend(small.pop(), false, client);
                }
                if (!large.isEmpty() && counts[1] < largeShare) {
                    return lend(large.pop(), true, client);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new Exhausted("no " + (size <= SMALL ? "" : "large ") + "buffer within " + wait.toMillis()
                            + " ms (this client holds " + counts[0] + " small and " + counts[1] + " large of its "
                            + smallShare + " and " + largeShare + "; free: " + small.size() + " small, "
                            + large.size() + " large)");
                }
                returned.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    private Lease lend(MemorySegment buffer, boolean isLarge, Object client) {
        out.computeIfAbsent(client, c -> new int[2])[isLarge ? 1 : 0]++;
        return new Lease(buffer, isLarge, client);
    }

    /** {@return buffers lent out now: [small, large]} */
    int[] lent() {
        lock.lock();
        try {
            return new int[] {smallCount - small.size(), largeCount - large.size()};
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
