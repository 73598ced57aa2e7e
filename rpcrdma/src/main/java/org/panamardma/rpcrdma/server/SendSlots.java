package org.panamardma.rpcrdma.server;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;

/**
 * Which of a connection's pre-registered Send buffers are free: one per call slot, so a call in progress always
 * finds one. A buffer whose Send was posted goes back only when the device is done with it (the Send's completion,
 * successful or flushed), never because the call stopped waiting: a call whose Send timed out must not hand the
 * buffer to the next call while the work request may still be queued, or the device would send the next reply's
 * bytes under this one's (the connection is closed after such a timeout, which flushes the work request).
 * Thread-safe.
 */
final class SendSlots {
    private final BlockingQueue<Integer> free;

    SendSlots(int count) {
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
     * Gives back a buffer once the Send posted from it has completed, however it completes.
     *
     * @return a future that completes as {@code send} does, once the buffer is back. The call waits on it, not on
     *     the Send: a thread waiting on the Send itself may wake before the callback that gives the buffer back has
     *     run (CompletableFuture runs the waiter first), free its call slot, and the next call, taking the slot,
     *     found no buffer (IllegalStateException, the connection closed: seen with 4 credits under load)
     */
    <T> CompletableFuture<T> giveBackWhenDone(int slot, CompletableFuture<T> send) {
        return send.whenComplete((ok, failed) -> free.add(slot));
    }

    /** {@return the buffers free now} */
    int free() {
        return free.size();
    }
}
