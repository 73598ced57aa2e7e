package org.panamardma.rpcrdma.server;

import java.util.concurrent.Semaphore;

/**
 * A connection's call slots: the credits it granted (RFC 8166 section 3.3.1). A message is taken only with a free
 * slot, so no more calls run at once than were granted, and a call's slot is free again when the call has ended.
 *
 * <p>Closing gives out one slot more, to wake a receive loop that waits for one, and from then on no slot is given
 * out. Without the second half a loop that was waiting at the close took that extra slot as a real one and started
 * one call more than the credits on a closing connection (rehearsal and CI on siw: a flood that ended the
 * connection peaked at five calls in progress against four credits, and the fifth found no free Send buffer).
 * Thread-safe.
 */
final class CallSlots {
    private final Semaphore free;
    private volatile boolean closed;

    CallSlots(int credits) {
        if (credits < 1) {
            throw new IllegalArgumentException("credits must be at least 1: " + credits);
        }
        this.free = new Semaphore(credits);
    }

    /**
     * Waits for a free slot.
     *
     * @return true with a slot the caller now holds (give it back with {@link #giveBack}), false once closed (the
     *     caller holds none)
     */
    boolean take() throws InterruptedException {
        free.acquire();
        if (closed) {
            free.release(); // for any other waiter: it sees the close too
            return false;
        }
        return true;
    }

    /** Frees a slot taken with {@link #take}: its call ended, or its message never came. */
    void giveBack() {
        free.release();
    }

    /** From now on no slot is given out; a caller waiting in {@link #take} returns false. */
    void close() {
        closed = true;
        free.release();
    }

    /** {@return how many slots are free now (for tests)} */
    int free() {
        return free.availablePermits();
    }
}
