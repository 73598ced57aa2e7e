package org.panamardma.verbs.connection;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.WorkCompletions;

/**
 * The thread behind an {@link RdmaConnection}: polls its CQ dry, arms it, polls again (completions that raced the
 * arming raise no event) and sleeps in one {@code poll(2)} ({@link FdWaiter}) on the completion channel, the CM event
 * channel of a client's own connection, and an eventfd that {@link #stop()} writes, handing each work completion to
 * the {@link Handler} on this thread. An idle connection therefore costs no wake-ups: the sleep ends on a completion,
 * a CM event or a stop, and otherwise only after {@link #IDLE_WAIT_MILLIS} (a backstop, so that no wait is endless).
 * It slept in 50 ms slices before, 20 wake-ups a second per idle connection: an idle NFS server with one mount
 * spent 4-14% of a CPU of the emulated guest in them (IdleServerCpuDeviceTests, issue 26). With a busy-poll time it
 * first keeps polling the empty CQ for up to that long after the last completion ({@link
 * ConnectionOptions#busyPoll()}): no arming, no interrupt, no wake-up while traffic flows. Kept apart from the
 * connection's request API so that either can change (one poller for several connections) without the other.
 */
final class CompletionPoller {
    /**
     * The slice of the connection's waits that nothing wakes (a send queue's free slots, a disconnect's DISCONNECTED):
     * bounds how late they see a failure.
     */
    static final int WAIT_SLICE_MILLIS = 50;

    /**
     * The longest sleep of an idle poller: completions, CM events and {@link #stop()} end it at once, so this only
     * bounds the sleep (and how late a CM event that another thread already read off the channel is taken).
     */
    static final int IDLE_WAIT_MILLIS = 1000;

    private static final int BATCH = 32;

    /** What the poller calls, always on its own thread. */
    interface Handler {
        /** Completion {@code i} of {@code wc}, which is valid only during the call. */
        void completed(WorkCompletions wc, int i);

        /** After each drain of the CQ that found completions (slots may have been freed). */
        void drained();

        /** Due once per wait slice when the poller was made with {@code pollsCmEvents}. */
        void pollCmEvents() throws RdmaException;

        /** The loop ended by an exception from the CQ, the channel or the handler, not by {@link #stop()}. */
        void failed(Throwable t);

        /** While {@link #settleThen settling}: whether nothing pending can still complete through the CQ. */
        boolean settled();

        /** The settling ended: everything completed through the CQ is reported; fail the rest. */
        void settledEnd();
    }

    private final CompletionQueue cq;
    /** The client's own CM event channel's descriptor, or -1 (a server's connection: its CM events come elsewhere). */
    private final int cmEventFd;

    /** How long a settling poller sleeps at most between looks at the handler (the flush comes as completions). */
    static final int SETTLE_SLICE_MILLIS = 5;

    private final long busyPollNanos;
    private final Handler handler;
    private final Thread thread;
    private volatile boolean stopping;
    /** Set by {@link #settleThen}: until {@link #settleDeadline}, or until the handler is settled. */
    private volatile boolean settling;

    private volatile long settleDeadline;
    /**
     * What the poller sleeps on, made by the poller thread and closed by it when the loop ends. {@link #stop()} writes
     * {@link #stopping} and then reads this, the thread publishes this and then reads {@link #stopping}: with both
     * volatile, a stop either sees the waiter (and wakes it) or the thread sees the stop before its first sleep.
     */
    private volatile FdWaiter waiter;
    /**
     * Times the poller slept on the completion channel (read by tests). Only the poller writes it, but an atomic
     * increment costs nothing beside the sleep it counts and needs no single-writer argument to stay right.
     */
    private final AtomicLong sleeps = new AtomicLong();
    /** What other threads hand the poller thread to run ({@link #execute}). */
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();

    /**
     * {@code cq} must have a completion channel; the thread is a platform daemon thread named {@code name};
     * {@code cmEventFd} is the descriptor of a client's own CM event channel, whose events the handler takes
     * ({@link Handler#pollCmEvents()}), or -1; {@code busyPollNanos} 0 sleeps as soon as the CQ is empty.
     */
    CompletionPoller(String name, CompletionQueue cq, int cmEventFd, long busyPollNanos, Handler handler) {
        this.cq = cq;
        this.cmEventFd = cmEventFd;
        this.busyPollNanos = busyPollNanos;
        this.handler = handler;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::loop);
    }

    void start() {
        thread.start();
    }

    /** Whether the loop runs: started, not stopped, not ended by a failure. */
    boolean isRunning() {
        return thread.isAlive() && !stopping;
    }

    /** Whether the caller is the poller thread (a future's callback, for instance). */
    boolean isPollerThread() {
        return Thread.currentThread() == thread;
    }

    /**
     * Ends the loop after one more drain of the CQ, and waits for that unless called on the poller thread (a
     * completion's callback closing its connection), where the loop ends when the callback returns.
     */
    void stop() {
        stopping = true;
        FdWaiter w = waiter;
        if (w != null) {
            w.wakeup(); // a closed waiter ignores it
        }
        if (!isPollerThread()) {
            try {
                thread.join(5 * WAIT_SLICE_MILLIS + 2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The connection ended under the poller (its peer disconnected, on the thread that took the event): the poller
     * goes on draining the CQ, so that a completion already there, or the flush of the queue pair in error, reports
     * each request as it really ended, and calls {@link Handler#settledEnd()} once {@link Handler#settled()} or
     * after {@code graceNanos}, whichever comes first. Failing the pending requests at the event instead lost what
     * had completed: a request done, a message arrived, reported as "disconnected" because the CM event was read
     * before the CQ (the CM channel and the CQ are not ordered with each other).
     */
    void settleThen(long graceNanos) {
        settleDeadline = System.nanoTime() + graceNanos;
        settling = true;
        FdWaiter w = waiter;
        if (w != null && !isPollerThread()) {
            w.wakeup();
        }
    }

    /**
     * Runs {@code task} on the poller thread, soon (at its next turn), or here if the poller no longer runs: for
     * what must be done from a thread whose credentials are the ones the devices were opened with (the kernel
     * refuses rdma_cm's and the verbs' commands from any other, include/rdma/ib.h, {@code ib_safe_file_access}),
     * when the thread that finds it must be done may not have them ({@link SendQueue}'s refused doorbell).
     */
    void execute(Runnable task) {
        if (isPollerThread() || !isRunning()) {
            task.run();
            return;
        }
        tasks.add(task);
        FdWaiter w = waiter;
        if (w != null) {
            w.wakeup();
        }
        if (!isRunning()) {
            runTasks(); // stopped meanwhile: the loop may have ended before it looked
        }
    }

    private void runTasks() {
        Runnable r;
        while ((r = tasks.poll()) != null) {
            r.run();
        }
    }

    /** @return how often the poller has slept on the completion channel so far */
    long sleeps() {
        return sleeps.get();
    }

    private void loop() {
        long nextCmCheck = 0;
        long lastCompletion = System.nanoTime();
        boolean pollsCmEvents = cmEventFd >= 0;
        try (WorkCompletions wc = WorkCompletions.allocate(BATCH);
                FdWaiter sleep = FdWaiter.create()) {
            sleep.add(cq.channel().fd());
            if (pollsCmEvents) {
                sleep.add(cmEventFd);
            }
            waiter = sleep;
            while (!stopping) {
                runTasks();
                if (settling) {
                    drain(wc);
                    if (handler.settled() || System.nanoTime() - settleDeadline >= 0) {
                        settling = false;
                        handler.settledEnd();
                    }
                }
                if (pollsCmEvents && System.nanoTime() - nextCmCheck >= 0) {
                    handler.pollCmEvents();
                    nextCmCheck = System.nanoTime() + WAIT_SLICE_MILLIS * 1_000_000L;
                }
                if (drain(wc) > 0) {
                    lastCompletion = System.nanoTime();
                    continue;
                }
                if (busyPollNanos > 0 && System.nanoTime() - lastCompletion < busyPollNanos) {
                    Thread.onSpinWait();
                    continue;
                }
                cq.requestNotification(false);
                if (drain(wc) > 0) {
                    lastCompletion = System.nanoTime();
                    continue;
                }
                sleeps.incrementAndGet();
                int ready = sleep.await(settling ? SETTLE_SLICE_MILLIS : IDLE_WAIT_MILLIS);
                // take and acknowledge the completion event, if that is what woke us (non-blocking); the CQ is
                // drained and armed again at the top of the loop
                cq.channel().await(0);
                if (pollsCmEvents && cmEventReady(sleep, ready)) {
                    nextCmCheck = System.nanoTime(); // due now
                }
            }
            drain(wc);
        } catch (Throwable t) {
            if (!stopping) {
                handler.failed(t);
            }
        }
        runTasks(); // handed over as the loop ended
        if (settling) { // stopped or failed while settling: what is pending fails now
            settling = false;
            handler.settledEnd();
        }
    }

    private boolean cmEventReady(FdWaiter sleep, int ready) {
        for (int i = 0; i < ready; i++) {
            if (sleep.readyFd(i) == cmEventFd) {
                return true;
            }
        }
        return false;
    }

    private int drain(WorkCompletions wc) throws RdmaException {
        int total = 0;
        int n;
        while ((n = cq.poll(wc)) > 0) {
            total += n;
            for (int i = 0; i < n; i++) {
                handler.completed(wc, i);
            }
        }
        if (total > 0) {
            handler.drained();
        }
        return total;
    }
}
