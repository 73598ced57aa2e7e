package org.panamardma.oncrpc.tcp;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The buffers replies' inline parts are encoded into, kept for reuse up to 64 MiB (at most 256 of them). How many
 * are in use at once is bounded by the memory budgets, which count one per call in progress.
 */
final class ReplyBuffers {
    private final int size;
    private final BlockingQueue<byte[]> free;

    ReplyBuffers(int size) {
        this.size = size;
        this.free = new ArrayBlockingQueue<>(Math.max(1, Math.min(256, (64 << 20) / size)));
    }

    /** {@return the size of each buffer} */
    int size() {
        return size;
    }

    byte[] borrow() {
        byte[] buffer = free.poll();
        return buffer != null ? buffer : new byte[size];
    }

    void giveBack(byte[] buffer) {
        free.offer(buffer);
    }
}
