package org.panamardma.nfs.server;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OS threads NFS procedures run on, each acting as its call's {@link Caller}: the thread's file-system user
 * and group, supplementary groups and capabilities become the caller's for the call ({@link ThreadCredentials}),
 * exactly as knfsd's {@code nfsd_setuser} does for an nfsd thread, and the server's again after it. So the kernel
 * makes files owned by the caller, checks the caller's permissions (POSIX ACLs included), and, since a caller other
 * than root runs without CAP_FSETID, clears set-user-id and set-group-id bits on its writes and truncates.
 *
 * <p>Why platform threads of its own: credentials belong to an OS thread, and a virtual thread (the transports run
 * each call on one) may continue on another carrier thread after any blocking point, taking none of them along. Each
 * call sets the whole identity on entry and restores the server's on exit, so nothing carries over from one call to
 * the next on a pooled thread; a thread whose identity could not be restored is retired and replaced.
 *
 * <p>Why a call is not served whole on one of these threads, from its message to its reply, as an nfsd thread serves
 * it (tried on 2026-11-29): a thread that took on a caller's credentials can never post to the RDMA device again. rxe
 * and siw ring their doorbell with a command written to the device's file, and the kernel refuses such a command from
 * a thread whose credentials are not the very ones the file was opened with, even after they were changed back
 * ({@code ib_safe_file_access}, include/rdma/ib.h; on siw the queue pair then sends nothing more). So the transport's
 * threads post, and these threads only run procedures. Nor do they wake or start any thread, which would inherit
 * their credentials (a virtual thread's carrier among them): a call's end, which wakes its waiter, and what an
 * abandoned call releases run on the {@link WakerThread}.
 *
 * <p>Every wait has a deadline: a call waits at most {@code wait} for a free thread (then {@link Busy}: the
 * procedure answers NFS3ERR_JUKEBOX); once running, its caller waits at most {@code limit} (a file system that
 * hangs) and then abandons it ({@link Busy} too), and what the abandoned call still holds is released when it ends.
 * The waiter parks untimed; the {@link WakerThread} looks at the waiting calls' deadlines every quarter of the shortest
 * one seen (10 ms to 1 s) and wakes those past theirs ({@link CallerTask#overdue}).
 */
final class CallerThreads implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CallerThreads.class);
    private static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();

    /** No thread took the call within its wait, or it ran past its limit: the client should try again later. */
    static final class Busy extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean abandoned;

        Busy(String message, boolean abandoned) {
            super(message, null, false, false);
            this.abandoned = abandoned;
        }

        /**
         * @return whether the call had started and still runs: {@code onAbandon} runs when it ends (its
         *         resources must not be released before); otherwise it never ran
         */
        boolean abandoned() {
            return abandoned;
        }
    }

    /** A procedure's body, as the caller. */
    @FunctionalInterface
    interface Op<T> {
        T run() throws Exception;
    }

    private final ServerIdentity server;
    private final BlockingQueue<CallerTask<?>> queue;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Guards {@link #running} and the moment {@link #closed} is set: no call starts once close() has begun. */
    private final Object idle = new Object();

    /** Calls taken and not yet ended (their end runs on the waker). Guarded by {@link #idle}. */
    private int running;

    private final AtomicInteger names = new AtomicInteger();
    /** Threads started and not yet ended (the waker ends after them, once closed). */
    private final AtomicInteger alive = new AtomicInteger();

    private final String prefix;
    /** Wakes the calls' waiters and starts replacement threads, for the threads that acted as callers. */
    private final WakerThread waker;
    /** The calls whose waiters wait (queued or running), whose deadlines the waker watches. */
    private final Set<CallerTask<?>> waiting = ConcurrentHashMap.newKeySet();
    /** How often the waker looks at their deadlines: a quarter of the shortest deadline seen, 10 ms to 1 s. */
    private final AtomicLong sweepNanos = new AtomicLong(MAX_SWEEP_NANOS);

    private static final long MIN_SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * Starts {@code threads} threads; returns once each has set itself up (its own umask 0).
     *
     * @param queued calls that may wait for a thread; a call beyond them is {@link Busy} at once
     * @throws PosixException if a thread cannot be set up
     */
    CallerThreads(ServerIdentity server, int threads, int queued, String prefix) throws PosixException {
        if (threads < 1 || queued < 1) {
            throw new IllegalArgumentException(threads + " threads, " + queued + " queued calls");
        }
        this.server = server;
        this.queue = new ArrayBlockingQueue<>(queued);
        this.prefix = prefix;
        this.waker = new WakerThread(
                prefix + "-waker", () -> closed.get() && alive.get() == 0, this::wakeOverdue, sweepNanos::get);
        for (int i = 0; i < threads; i++) {
            startThread();
        }
    }

    private void startThread() throws PosixException {
        CountDownLatch ready = new CountDownLatch(1);
        PosixException[] failed = new PosixException[1];
        Thread t = Thread.ofPlatform()
                .daemon()
                .name(prefix + "-" + names.incrementAndGet())
                .unstarted(() -> {
                    try {
                        Worker w;
                        try {
                            w = new Worker(server);
                        } catch (PosixException e) {
                            failed[0] = e;
                            ready.countDown();
                            return;
                        }
                        CURRENT.set(w);
                        ready.countDown();
                        loop(w);
                    } finally {
                        alive.decrementAndGet(); // after the last end it handed the waker
                    }
                });
        alive.incrementAndGet();
        t.start();
        boolean started;
        try {
            started = ready.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started = false;
        }
        if (!started) {
            throw new PosixException(PosixException.EAGAIN, "starting", t.getName());
        }
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    private void loop(Worker w) {
        while (!closed.get()) {
            CallerTask<?> task;
            try {
                task = queue.poll(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (task == null) {
                continue;
            }
            synchronized (idle) {
                if (closed.get()) { // taken from the queue as close() emptied it: it never runs
                    waker.execute(task::cancelQueued);
                    return;
                }
                running++;
            }
            Ended ended = null;
            try {
                ended = w.run(task);
            } finally {
                Ended e = ended;
                // this thread's credentials are no longer the ones the device was opened with: it wakes no one
                waker.execute(() -> end(task, e));
            }
            if (ended == null || !ended.restored()) {
                LOG.error(Thread.currentThread().getName() + ": the server's identity could not be restored after"
                        + " a call; the thread is retired");
                waker.execute(this::replaceRetired); // started by a thread that kept its credentials
                return;
            }
        }
    }

    /** On the waker: the call ends (its waiter wakes, or its onAbandon runs), and it no longer counts as running. */
    private <T> void end(CallerTask<T> task, Ended ended) {
        try {
            if (ended == null) {
                task.finish(null, new IllegalStateException("the caller thread failed"));
            } else if (ended.ran()) {
                @SuppressWarnings("unchecked")
                T value = (T) ended.value();
                task.finish(value, ended.thrown());
            }
        } finally {
            synchronized (idle) {
                running--;
                idle.notifyAll();
            }
        }
    }

    /** On the waker: a thread in place of one retired, unless the server closes. */
    private void replaceRetired() {
        try {
            if (!closed.get()) {
                startThread();
            }
        } catch (PosixException e) {
            LOG.error("starting a replacement thread", e);
        }
    }

    /**
     * How a taken call went on its thread.
     *
     * @param ran false if it was cancelled before it started (nothing to end)
     * @param restored false if the server's identity could not be restored (the thread must not go on)
     */
    private record Ended(boolean ran, Object value, Throwable thrown, boolean restored) {}

    /**
     * Runs {@code op} as {@code caller} on one of the threads.
     *
     * @param wait how long to wait for a thread
     * @param limit how long to wait for the result once it runs
     * @param onAbandon run once {@code op} is over, if this call stopped waiting for it (on the {@link WakerThread})
     * @throws Busy if no thread took it within {@code wait}, or it ran longer than {@code limit}
     * @throws Exception what {@code op} threw
     */
    <T> T run(Caller caller, Duration wait, Duration limit, Op<T> op, Runnable onAbandon) throws Exception {
        return run(caller, wait, limit, null, op, onAbandon);
    }

    /**
     * Runs {@code op} as {@code caller} on one of the threads, after {@code prelude} as the server on the same
     * thread: what the call would otherwise do as the server from inside the caller's identity
     * ({@link #asServer}), done before the thread takes that identity, so that a call switches once each way
     * (resolving the call's file handle: knfsd likewise finds the file, {@code fh_verify}, before its
     * {@code nfsd_setuser}). {@code op} takes its result by {@link #takePrepared}.
     *
     * @param prelude run as the server, before the caller's identity; null for none. What it returns is closed
     *     after the call unless {@code op} took it. If it fails, nothing is prepared ({@code op} does the work
     *     again and answers the failure)
     */
    <T> T run(Caller caller, Duration wait, Duration limit, Op<Prepared> prelude, Op<T> op, Runnable onAbandon)
            throws Exception {
        if (closed.get()) {
            throw new Busy("the server is closing", false);
        }
        CallerTask<T> task = new CallerTask<>(caller, prelude, op, onAbandon, wait, limit);
        long period = Math.clamp(task.shorterDeadline().toNanos() / 4, MIN_SWEEP_NANOS, MAX_SWEEP_NANOS);
        if (period < sweepNanos.get()) {
            sweepNanos.accumulateAndGet(period, Math::min);
            // the waker looks again, to wait the shorter period from now on (rare: a deadline shorter than any so far)
            waker.execute(() -> {});
        }
        waiting.add(task);
        try {
            if (!queue.offer(task)) {
                throw new Busy(queue.size() + " calls already wait for a thread", false);
            }
            return task.await();
        } finally {
            waiting.remove(task);
        }
    }

    /** On the waker, every {@link #sweepNanos}: wakes the waiters of calls past their deadline to give them up. */
    private void wakeOverdue() {
        long now = System.nanoTime();
        for (CallerTask<?> t : waiting) {
            if (t.overdue(now)) {
                t.wakeWaiter();
            }
        }
    }

    /** What the server does for itself, with a checked exception of one type. */
    @FunctionalInterface
    interface Privileged<T, X extends Exception> {
        T run() throws X;
    }

    /**
     * Runs {@code op} with the server's own identity, when the calling thread acts as a caller: what the server
     * does for itself (find a file from its handle through directories the caller may not search, open a file after
     * its own permission check, commit a directory) and never on the caller's behalf. Elsewhere it just runs it.
     *
     * @throws IllegalStateException if the thread's identity cannot be switched (the call must fail)
     */
    static <T, X extends Exception> T asServer(Privileged<T, X> op) throws X {
        Worker w = CURRENT.get();
        if (w == null || w.acting == null) {
            return op.run();
        }
        Caller caller = w.acting;
        w.restore();
        try {
            return op.run();
        } finally {
            w.actAs(caller);
        }
    }

    /**
     * Takes what this call's prelude prepared under {@code key} (once): null if there is none, or it was prepared
     * under another key, or the calling thread is not one of these.
     */
    static AutoCloseable takePrepared(Object key) {
        Worker w = CURRENT.get();
        if (w == null || w.prepared == null || !w.prepared.key().equals(key)) {
            return null;
        }
        AutoCloseable value = w.prepared.value();
        w.prepared = null;
        return value;
    }

    /**
     * Refuses what would wake another thread (or start one) on a thread of these: its credentials are no longer the
     * ones the RDMA device was opened with ({@link WakerThread} says why that matters).
     *
     * @throws IllegalStateException on one of these threads
     */
    static void refuseOnCallerThread(String what) {
        if (CURRENT.get() != null) {
            throw new IllegalStateException(Thread.currentThread().getName() + " may not " + what
                    + ": a thread that acted as a caller wakes no other thread (its waker does)");
        }
    }

    /** The caller the calling thread acts as, or null (not one of these threads, or between calls). */
    static Caller acting() {
        Worker w = CURRENT.get();
        return w == null ? null : w.acting;
    }

    @Override
    public void close() {
        boolean first;
        synchronized (idle) {
            first = closed.compareAndSet(false, true);
        }
        if (first) {
            CallerTask<?> t;
            while ((t = queue.poll()) != null) {
                t.cancelQueued();
            }
        }
    }

    /**
     * Waits, after {@link #close()}, until no procedure runs any more and every call's end (an abandoned call's
     * release included) has run, at most {@code timeout}: what a running procedure holds (a data buffer a system
     * call is reading into, which keeps the pool's arena acquired) may be freed only then.
     *
     * @return whether none runs; false if one still did at the deadline (a file system that hangs)
     */
    boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idle) {
            while (running > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(idle, left);
            }
            return true;
        }
    }

    /** A thread's own state: its identities ({@link ThreadIdentity}), whom it acts as, what its prelude made. */
    private static final class Worker {
        private final ThreadIdentity identity;
        private Caller acting;
        /** What the call's prelude made as the server, until the body takes it ({@link #takePrepared}). */
        private Prepared prepared;

        Worker(ServerIdentity server) throws PosixException {
            this.identity = new ThreadIdentity(server);
        }

        /** Runs {@code task} to its end, which the caller hands the waker. */
        <T> Ended run(CallerTask<T> task) {
            if (!task.start()) {
                return new Ended(false, null, null, true);
            }
            T value = null;
            Throwable thrown = null;
            try {
                prepare(task);
                actAs(task.caller);
                value = task.op.run();
            } catch (Throwable t) {
                thrown = t;
            }
            boolean restored = true;
            try {
                restore();
            } catch (RuntimeException e) {
                restored = false;
                if (thrown == null) {
                    thrown = e;
                }
            }
            Prepared left = prepared;
            prepared = null;
            if (left != null) {
                left.close(); // the body did not take it (it failed before, or resolved another handle)
            }
            return new Ended(true, value, thrown, restored);
        }

        /**
         * Runs the task's prelude as the server, before the thread takes on its caller. A prelude that fails leaves
         * nothing: the body does the same work again and answers its failure in its own order.
         */
        private void prepare(CallerTask<?> task) {
            if (task.prelude == null) {
                return;
            }
            try {
                prepared = task.prelude.run();
            } catch (Exception e) {
                prepared = null;
            }
        }

        /** @throws IllegalStateException if the kernel refused any of it: the call must not run as the server */
        void actAs(Caller c) {
            acting = c;
            identity.actAs(c);
        }

        /** Back to the server's credentials. @throws IllegalStateException if they did not take */
        void restore() {
            acting = null;
            identity.restore();
        }
    }

    /**
     * What a call's prelude made as the server, for its body to take once by {@code key}; closed after the call if
     * the body did not take it.
     *
     * @param key what the body asks for it by (equal keys, same value)
     * @param value the resource
     */
    record Prepared(Object key, AutoCloseable value) {
        void close() {
            try {
                value.close();
            } catch (Exception e) {
                LOG.debug("closing a prepared resource the call did not take", e);
            }
        }
    }
}
