package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.panamardma.oncrpc.limits.MemoryBudget;
import org.panamardma.rpcrdma.RdmaSegment;

/**
 * The memory one call holds, taken from its connection's budgets as the call needs it and given back, all of it,
 * when the call ends ({@link #close()}). Not thread-safe: one call, one thread.
 */
final class CallMemory implements AutoCloseable {
    private final ConnectionMemory budgets;
    private long heapHeld;
    private long pinnedHeld;
    private MemoryRefused refused;

    CallMemory(ConnectionMemory budgets) {
        this.budgets = budgets;
    }

    /**
     * A zeroed heap segment of {@code bytes}, counted against the heap budgets until {@link #freeHeap} or close.
     *
     * @throws MemoryRefused if the budgets could not give it within the wait
     */
    MemorySegment heap(long bytes) {
        if (bytes > Integer.MAX_VALUE - 8) {
            throw refuse(budgets.heap(), bytes);
        }
        take(budgets.heap(), bytes);
        heapHeld += bytes;
        return MemorySegment.ofArray(new byte[(int) bytes]);
    }

    /** Gives back a heap segment from {@link #heap} that the call no longer uses. */
    void freeHeap(MemorySegment segment) {
        long bytes = segment.byteSize();
        budgets.heap().release(bytes);
        heapHeld -= bytes;
    }

    /** {@return the connection's pinned budget: the most registered memory its calls may hold at once} */
    long pinnedLimit() {
        return budgets.pinned().limit();
    }

    /** Counts {@code bytes} of registered memory against the pinned budgets, before registering them. */
    void pin(long bytes) {
        take(budgets.pinned(), bytes);
        pinnedHeld += bytes;
    }

    /**
     * Counts {@code bytes} of registered memory that outlives the call (a reply's staged writes, held until its Send
     * completes) against the pinned budgets.
     *
     * @return gives them back, once, from any thread
     * @throws MemoryRefused if the budgets could not give them within the wait
     */
    Runnable pinBeyondCall(long bytes) {
        take(budgets.pinned(), bytes);
        java.util.concurrent.atomic.AtomicBoolean given = new java.util.concurrent.atomic.AtomicBoolean();
        return () -> {
            if (given.compareAndSet(false, true)) {
                budgets.pinned().release(bytes);
            }
        };
    }

    /** Gives back what {@link #pin} counted, once the registration is gone. */
    void unpin(long bytes) {
        budgets.pinned().release(bytes);
        pinnedHeld -= bytes;
    }

    /**
     * {@code transfers} with each RDMA Read and Write counted against the pinned budgets while it runs: for transfers
     * that move the data before they return (a device has {@link CallTransfers}, which counts its own).
     */
    ChunkTransfers pinning(ChunkTransfers transfers) {
        return new ChunkTransfers() {
            @Override
            public void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
                pin(destination.byteSize());
                try {
                    transfers.read(segments, destination);
                } finally {
                    unpin(destination.byteSize());
                }
            }

            @Override
            public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
                pin(source.byteSize());
                try {
                    transfers.write(source, segments);
                } finally {
                    unpin(source.byteSize());
                }
            }
        };
    }

    /** {@return the refusal this call met, if any (the call is then answered with an error)} */
    MemoryRefused refused() {
        return refused;
    }

    private void take(MemoryBudget budget, long bytes) {
        MemoryBudget blamed;
        try {
            blamed = budget.acquireOrBlame(bytes, budgets.waitNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            blamed = budget;
        }
        if (blamed != null) {
            throw refuse(blamed, bytes);
        }
    }

    private MemoryRefused refuse(MemoryBudget budget, long bytes) {
        MemoryRefused r = new MemoryRefused(budget, bytes);
        if (refused == null) {
            refused = r;
        }
        return r;
    }

    @Override
    public void close() {
        if (heapHeld > 0) {
            budgets.heap().release(heapHeld);
            heapHeld = 0;
        }
        if (pinnedHeld > 0) {
            budgets.pinned().release(pinnedHeld);
            pinnedHeld = 0;
        }
    }
}
