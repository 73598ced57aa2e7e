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
 * call), while a condition's signal unparks it onto a carrier at once. And it waits untimed: its deadlines (to start,
 * then to end) are watched by the {@link WakerThread}, which wakes it once one has passed ({@link #overdue}). A
 * virtual thread's timed park arms a timer in its scheduler (JDK 25: the {@code ForkJoinPool}'s delay scheduler)
 * and cancels it when woken first, which wakes the pool's threads for a deadline that almost never fires (issue 26,
 * {@code TransferWaits} gives the measurement); the price is that a deadline is kept to within the waker's period
 * (a quarter of the shorter of the two), not to the millisecond.
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
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@return whether the call has passed the deadline of its state as of {@code now}: queued past its wait, or
     *         running past its limit; its waiter must then be woken ({@link #wakeWaiter}) to give it up}
     */
    boolean overdue(long now) {
        lock.lock();
        try {
            return switch (state) {
                case QUEUED -> now - startBy >= 0;
                case RUNNING -> now - (startedAt + limit.toNanos()) >= 0;
                default -> false;
            };
        } finally {
            lock.unlock();
        }
    }

    /** {@return the shorter of its two deadlines, from which the waker's period is taken} */
    Duration shorterDeadline() {
        return wait.compareTo(limit) <= 0 ? wait : limit;
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
                    changed.await(); // untimed: the waker wakes it at the deadline (see above)
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
