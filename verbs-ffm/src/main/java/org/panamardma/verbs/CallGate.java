package org.panamardma.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The gate every data-path call on one native object passes (a queue pair's posts, a completion queue's polls): it
 * admits one call at a time, and none once the object is closed, so that {@code close()} never destroys the object
 * under a call and two posts never share the QP's scratch at once. It replaces the object's monitor on the data path
 * because it costs half as much: one compare-and-swap to enter and a plain release store to leave, where a monitor
 * takes a compare-and-swap for each (benchmarks/README.md, "The binding's own cost on the host CPU").
 *
 * <p>Leaving with a plain store means the leaver cannot see a waiter without a fence, so a waiter is never parked
 * for longer than a bounded slice: it spins briefly (the holder is in a call of a few hundred nanoseconds on real
 * hardware), then yields, then parks for slices growing from {@value #FIRST_PARK_NANOS} ns to {@value
 * #LAST_PARK_NANOS} ns and tries again. Posting to one QP from several threads at once works but costs that; one
 * thread per QP is the fast way (as with every verbs library).
 *
 * <p>{@link #close(long)} first raises a flag that makes every later {@link #enter()} fail at once (so a thread
 * posting in a loop cannot starve the closer), then waits for the call in progress, if any, to leave.
 */
final class CallGate {
    private static final int OPEN = 0;
    private static final int BUSY = 1;
    private static final int CLOSED = 2;
    private static final int SPINS = 1 << 10;
    private static final int YIELDS = 16;
    static final long FIRST_PARK_NANOS = 10_000;
    static final long LAST_PARK_NANOS = 1_000_000;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(CallGate.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    private volatile boolean closing;

    /**
     * Lets the caller in, waiting while another call is in progress; false once the gate is closing or closed (the
     * caller throws its "closed" exception). Every true must be followed by one {@link #leave()}, in a finally.
     */
    boolean enter() {
        if (!closing && STATE.compareAndSet(this, OPEN, BUSY)) {
            return true;
        }
        return enterContended();
    }

    private boolean enterContended() {
        long park = FIRST_PARK_NANOS;
        for (int attempt = 0; ; attempt++) {
            if (closing) {
                return false;
            }
            int s = (int) STATE.getAcquire(this);
            if (s == CLOSED) {
                return false;
            }
            if (s == OPEN && STATE.compareAndSet(this, OPEN, BUSY)) {
                return true;
            }
            park = backOff(attempt, park);
        }
    }

    /** Leaves: a release store, so that everything the call did happens before the next entry or the close. */
    void leave() {
        STATE.setRelease(this, OPEN);
    }

    /**
     * Closes the gate: no call enters after this begins, and it returns true once no call is in progress and none
     * can start. False if a call in progress did not leave within {@code timeoutNanos} (a provider stuck in a call):
     * the caller must then not destroy the native object (leaking it is the safe way out), and the gate stays
     * closed to new calls. Idempotent.
     */
    boolean close(long timeoutNanos) {
        closing = true;
        long deadline = System.nanoTime() + timeoutNanos;
        long park = FIRST_PARK_NANOS;
        for (int attempt = 0; ; attempt++) {
            int s = (int) STATE.getAcquire(this);
            if (s == CLOSED || (s == OPEN && STATE.compareAndSet(this, OPEN, CLOSED))) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            park = backOff(attempt, park);
        }
    }

    /** Whether {@link #close} has begun. */
    boolean isClosing() {
        return closing;
    }

    private static long backOff(int attempt, long park) {
        if (attempt < SPINS) {
            Thread.onSpinWait();
            return park;
        }
        if (attempt < SPINS + YIELDS) {
            Thread.yield();
            return park;
        }
        LockSupport.parkNanos(park);
        return Math.min(park * 2, LAST_PARK_NANOS);
    }

    /** The default of {@link #close(long)}'s wait: far beyond any verbs call, short of a test's own deadline. */
    static final long CLOSE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    /**
     * {@link #enter()}, or {@link IllegalStateException} naming {@code description} if the object is closed or
     * closing. Every call must be followed by {@link #leave()} in a finally.
     */
    void enterOrThrow(String description) {
        if (!enter()) {
            throw new IllegalStateException(description + " is closed");
        }
    }

    /**
     * A view of the QP's scratch memory {@code s} in the global scope, for the data path of a queue pair. Why: a
     * segment of a shared arena handed to a downcall is acquired and released around the call (two
     * compare-and-swaps on the arena's counter: 2.6 ns more per call on the host, benchmarks/README.md "The binding's
     * own cost on the host CPU"), which guards against a concurrent close of the arena. Here the QP's gate already does: the scratch is used
     * only by a call the gate admitted, and it is freed only by the QP's destroy(), after the gate is closed, so no
     * call can be in progress or start on freed scratch. (Reads and writes through the view skip the arena's
     * liveness check for the same reason.)
     */
    static MemorySegment unscoped(MemorySegment s) {
        return MemorySegment.ofAddress(s.address()).reinterpret(s.byteSize());
    }
}
