package org.panamardma.rpcrdma.server;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Which of a connection's pre-registered Send buffers are free: one per call slot, so a call in progress always
 * finds one. A buffer whose Send was posted goes back only when the device is done with it (the Send's completion,
 * successful or flushed), never because the call stopped waiting: a call whose Send timed out must not hand the
 * buffer to the next call while the work request may still be queued, or the device would send the next reply's
 * bytes under this one's (the connection is closed after such a timeout, which flushes the work request).
 * Each posted Send's deadline is kept with its buffer until it completes: no thread waits for a reply's Send
 * (svcrdma does not either), and {@link IdleWatch} looks for one past its deadline ({@link #overdue}).
 * Thread-safe.
 */
final class SendSlots {
    /**
     * A reply posted from a buffer: when its Send (and the RDMA Writes chained before it) must have completed, the
     * wait that gave that deadline, and whether the reply had Writes (then a late completion is a transfer timeout).
     */
    record Pending(long deadlineNanos, long waitMillis, boolean withWrites) {}

    private final BlockingQueue<Integer> free;
    /** Per buffer, the reply posted from it and not yet completed; null when none. */
    private final AtomicReferenceArray<Pending> pending;

    SendSlots(int count) {
        this.pending = new AtomicReferenceArray<>(count);
        this.free = new ArrayBlockingQueue<>(count);
        for (int i = 0; i < count; i++) {
            free.add(i);
        }
    }

    /**
     * {@return a free buffer's index}
     *
     * @throws IllegalStateException if none is free (more calls than slots: a bug)
     */
    int take() {
        Integer slot = free.poll();
        if (slot == null) {
            throw new IllegalStateException("no free send buffer for a call slot");
        }
        return slot;
    }

    /** Gives back a buffer no Send was posted from. */
    void giveBack(int slot) {
        free.add(slot);
    }

    /**
     * Gives back a buffer once the Send posted from it has completed, however it completes; until then the reply
     * is {@code posted}, seen by {@link #overdue} once past its deadline.
     *
     * @return a future that completes as {@code send} does, once the buffer is back. What ends the call hangs on
     *     it, not on the Send: a callback on the Send itself may run before the one that gives the buffer back
     *     (CompletableFuture runs dependents in no set order), free its call slot, and the next call, taking the
     *     slot, found no buffer (IllegalStateException, the connection closed: seen with 4 credits under load)
     */
    <T> CompletableFuture<T> giveBackWhenDone(int slot, CompletableFuture<T> send, Pending posted) {
        pending.set(slot, posted);
        return send.whenComplete((ok, failed) -> {
            // cleared before the buffer is free: the next reply from it sets its own
            pending.set(slot, null);
            free.add(slot);
        });
    }

    /** {@return a reply whose Send has not completed by its deadline, as of {@code now}; null if none} */
    Pending overdue(long now) {
        for (int i = 0; i < pending.length(); i++) {
            Pending p = pending.get(i);
            if (p != null && now - p.deadlineNanos() > 0) {
                return p;
            }
        }
        return null;
    }

    /** {@return the buffers free now} */
    int free() {
        return free.size();
    }
}
