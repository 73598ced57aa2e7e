package org.panamardma.nfs.server;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One call of {@link CallerThreads}: queued, then running on one of its threads, then done; or cancelled in the
 * queue, or abandoned while running (its deadlines, {@link CallerThreads#run}).
 *
 * <p>Its waiter (the transport's thread of the call, a virtual thread) waits on a {@link ReentrantLock}'s
 * condition, not on the task's monitor: a virtual thread in {@code Object.wait} is woken through the JDK's
 * unblocker thread, which then hands it to a carrier (two wake-ups, seen in knfs-timeline.sh's traces of every
 * call), while a condition's signal unparks it onto a carrier at once. And it is woken when the call starts only
 * if the call's running deadline comes before the queue deadline it sleeps to (a running limit shorter than the
 * wait for a thread): with the defaults (5 s to start, 60 s to run) never, where the monitor version woke it at
 * every start.
 *
 * <p>Who signals matters: a signal unparks the waiter from the signalling thread, which may then start a carrier
 * thread. So {@link #finish}, {@link #wakeWaiter} and the abandoned call's release run on {@link WakerThread}, never
 * on the caller thread that ran the call (whose credentials no thread that posts to the RDMA device may inherit).
 */
final class CallerTask<T> {
    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int DONE = 2;
    private static final int CANCELLED = 3;
    private static final int ABANDONED = 4;

    final Caller caller;
    final CallerThreads.Op<CallerThreads.Prepared> prelude;
    final CallerThreads.Op<T> op;
    private final Runnable onAbandon;
    private final Duration wait;
    private final Duration limit;
    /** When the call must have started: {@code wait} from its queueing. */
    private final long startBy;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private int state = QUEUED;
    private long startedAt;
    /** Set at the start when the waiter sleeps past the running deadline ({@link #wakeAtStart}). */
    private boolean wakeAtStart;

    private T result;
    private Throwable failure;

    CallerTask(
            Caller caller,
            CallerThreads.Op<CallerThreads.Prepared> prelude,
            CallerThreads.Op<T> op,
            Runnable onAbandon,
            Duration wait,
            Duration limit) {
        this.caller = caller;
        this.prelude = prelude;
        this.op = op;
        this.onAbandon = onAbandon;
        this.wait = wait;
        this.limit = limit;
        this.startBy = System.nanoTime() + wait.toNanos();
    }

    /** {@return whether the worker may run it (not cancelled meanwhile)} */
    boolean start() {
        lock.lock();
        try {
            if (state != QUEUED) {
                return false;
            }
            state = RUNNING;
            startedAt = System.nanoTime();
            // the waiter sleeps to startBy, past the running deadline: it must be woken to sleep to that
            wakeAtStart = startedAt + limit.toNanos() - startBy < 0;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** {@return whether {@link #wakeWaiter} must follow the start (by a thread that may wake others)} */
    boolean wakeAtStart() {
        lock.lock();
        try {
            return wakeAtStart;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the waiter to look at the state again. */
    void wakeWaiter() {
        CallerThreads.refuseOnCallerThread("wake a call's waiter");
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void finish(T value, Throwable thrown) {
        CallerThreads.refuseOnCallerThread("end a call");
        boolean abandoned;
        lock.lock();
        try {
            abandoned = state == ABANDONED;
            if (!abandoned) {
                result = value;
                failure = thrown;
                state = DONE;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (abandoned) {
            onAbandon.run();
        }
    }

    void cancelQueued() {
        CallerThreads.refuseOnCallerThread("cancel a call");
        lock.lock();
        try {
            if (state == QUEUED) {
                state = CANCELLED;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    T await() throws Exception {
        lock.lock();
        try {
            while (true) {
                if (state == DONE) {
                    break;
                }
                if (state == CANCELLED) {
                    throw new CallerThreads.Busy("the server is closing", false);
                }
                long left = (state == QUEUED ? startBy : startedAt + limit.toNanos()) - System.nanoTime();
                if (left <= 0) {
                    if (state == QUEUED) {
                        state = CANCELLED;
                        throw new CallerThreads.Busy("no thread free within " + wait.toMillis() + " ms", false);
                    }
                    state = ABANDONED;
                    throw new CallerThreads.Busy("still running after " + limit.toMillis() + " ms", true);
                }
                try {
                    changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    // the transport's thread is being stopped (the server closes): give the call up as at a
                    // deadline, keeping the interrupt for the caller to see
                    Thread.currentThread().interrupt();
                    if (state == QUEUED) {
                        state = CANCELLED;
                        throw new CallerThreads.Busy("interrupted while waiting for a thread", false);
                    }
                    if (state == RUNNING) {
                        state = ABANDONED;
                        throw new CallerThreads.Busy("interrupted while the call ran", true);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            if (failure instanceof Exception e) {
                throw e;
            }
            throw (Error) failure;
        }
        return result;
    }
}
