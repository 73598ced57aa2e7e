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

    // a queue add cannot fail, and the Send's own failure is its caller's: the future whenComplete returns would
    // only repeat it
    /** Gives back a buffer once the Send posted from it has completed, however it completes. */
    @SuppressWarnings("FutureReturnValueIgnored")
    void giveBackWhenDone(int slot, CompletableFuture<?> send) {
        send.whenComplete((ok, failed) -> free.add(slot));
    }

    /** {@return the buffers free now} */
    int free() {
        return free.size();
    }
}
