package org.panamardma.nfs.server;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The native memory READ and WRITE data passes through between the file and the transport: a fixed set of
 * buffers allocated once, so what clients can make the server hold is bounded by the configuration (slots times
 * sizes), whatever they ask. A READ's data is read from the file into a buffer and leaves from there (an RDMA
 * Write from that memory, registered in place, or a TCP write), then the buffer comes back
 * ({@link org.panamardma.oncrpc.ReplyResources}). A call that finds every buffer in use waits for one.
 */
final class IoBuffers implements AutoCloseable {
    /** Buffers of this size serve small transfers (4 KiB pages of fio, directory-sized reads). */
    static final int SMALL = 64 << 10;

    private final Arena arena = Arena.ofShared();
    private final int largeSize;
    private final BlockingQueue<MemorySegment> small;
    private final BlockingQueue<MemorySegment> large;

    /**
     * @param largeSize the size of the large buffers: the largest READ or WRITE (FSINFO rtmax, wtmax)
     * @param smallCount how many buffers of {@value #SMALL} bytes
     * @param largeCount how many buffers of {@code largeSize} bytes
     */
    IoBuffers(int largeSize, int smallCount, int largeCount) {
        this.largeSize = largeSize;
        this.small = new ArrayBlockingQueue<>(smallCount);
        this.large = new ArrayBlockingQueue<>(largeCount);
        for (int i = 0; i < smallCount; i++) {
            small.add(arena.allocate(SMALL, 4096));
        }
        for (int i = 0; i < largeCount; i++) {
            large.add(arena.allocate(largeSize, 4096));
        }
    }

    /** @return the bytes allocated, all of it, for good */
    long footprint() {
        return (long) (small.size() + small.remainingCapacity()) * SMALL
                + (long) (large.size() + large.remainingCapacity()) * largeSize;
    }

    /** A buffer lent out; closing it (once, from any thread) gives it back. */
    final class Lease implements AutoCloseable {
        private final MemorySegment buffer;
        private final BlockingQueue<MemorySegment> home;
        private final AtomicBoolean returned = new AtomicBoolean();

        private Lease(MemorySegment buffer, BlockingQueue<MemorySegment> home) {
            this.buffer = buffer;
            this.home = home;
        }

        /** @return the whole buffer */
        MemorySegment segment() {
            return buffer;
        }

        @Override
        public void close() {
            if (returned.compareAndSet(false, true)) {
                home.add(buffer);
            }
        }
    }

    /**
     * Lends a buffer of at least {@code size} bytes, waiting for one if all are in use.
     *
     * @throws IllegalArgumentException if {@code size} exceeds the large size
     */
    Lease take(long size) throws InterruptedException {
        if (size > largeSize) {
            throw new IllegalArgumentException(size + " bytes exceed the largest buffer of " + largeSize);
        }
        BlockingQueue<MemorySegment> from = size <= SMALL && !small.isEmpty() ? small : large;
        if (size <= SMALL && from == large) {
            MemorySegment any = large.poll();
            if (any != null) {
                return new Lease(any, large);
            }
            from = small; // wait for a small one rather than for a large one
        }
        return new Lease(from.take(), from);
    }

    @Override
    public void close() {
        arena.close();
    }
}
