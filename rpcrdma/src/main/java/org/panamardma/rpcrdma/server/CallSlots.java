package org.panamardma.rpcrdma.server;

import java.util.concurrent.Semaphore;

/**
 * A connection's call slots: the credits it granted (RFC 8166 section 3.3.1). A message is asked for only with a free
 * slot, so no more calls run at once than were granted, and a call's slot is free again when the call has ended.
 * Nothing waits for a slot: the connection asks for one message per slot, and for the next when a call ends.
 *
 * <p>Once closed no slot is given out, also when calls end after the close: a closing connection starts no call (CI
 * on siw once saw a flood that ended the connection peak at five calls in progress against four credits, when the
 * close woke a receive loop of an earlier design with a slot of its own). Thread-safe.
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
     * Takes a free slot if there is one, without waiting.
     *
     * @return true with a slot the caller now holds (give it back with {@link #giveBack}), false if none is free or
     *     once closed (the caller holds none)
     */
    boolean tryTake() {
        if (closed || !free.tryAcquire()) {
            return false;
        }
        if (closed) { // closed between the two: a slot taken now would start a call on a closing connection
            free.release();
            return false;
        }
        return true;
    }

    /** Frees a slot taken with {@link #tryTake}: its call ended, or its message never came. */
    void giveBack() {
        free.release();
    }

    /** From now on no slot is given out. */
    void close() {
        closed = true;
    }

    /** {@return how many slots are free now (for tests)} */
    int free() {
        return free.availablePermits();
    }
}
