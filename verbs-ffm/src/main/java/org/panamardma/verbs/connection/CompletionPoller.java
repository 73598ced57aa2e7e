package org.panamardma.verbs.connection;

import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.WorkCompletions;

/**
 * The thread behind an {@link RdmaConnection}: polls its CQ dry, arms it, polls again (completions that raced the
 * arming raise no event) and waits on the completion channel in slices of {@link #WAIT_SLICE_MILLIS} ms, handing
 * each work completion to the {@link Handler} on this thread. Between slices it lets the handler take the CM events
 * of a client's own event channel. With a busy-poll time it first keeps polling the empty CQ for up to that long
 * after the last completion ({@link ConnectionOptions#busyPoll()}): no arming, no interrupt, no wake-up while
 * traffic flows. Kept apart from the connection's request API so that either can change (one poller for several
 * connections) without the other.
 */
final class CompletionPoller {
    /** How long one wait on the completion channel lasts: bounds how late a stop or a CM event is seen. */
    static final int WAIT_SLICE_MILLIS = 50;

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
    }

    private final CompletionQueue cq;
    private final boolean pollsCmEvents;
    private final long busyPollNanos;
    private final Handler handler;
    private final Thread thread;
    private volatile boolean stopping;
    /**
     * Times the poller slept on the completion channel (read by tests). Only the poller writes it, but an atomic
     * increment costs nothing beside the sleep it counts and needs no single-writer argument to stay right.
     */
    private final AtomicLong sleeps = new AtomicLong();

    /**
     * {@code cq} must have a completion channel; the thread is a platform daemon thread named {@code name};
     * {@code busyPollNanos} 0 sleeps as soon as the CQ is empty.
     */
    CompletionPoller(String name, CompletionQueue cq, boolean pollsCmEvents, long busyPollNanos, Handler handler) {
        this.cq = cq;
        this.pollsCmEvents = pollsCmEvents;
        this.busyPollNanos = busyPollNanos;
        this.handler = handler;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::loop);
    }

    void start() {
        thread.start();
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
        if (!isPollerThread()) {
            try {
                thread.join(5 * WAIT_SLICE_MILLIS + 2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return how often the poller has slept on the completion channel so far */
    long sleeps() {
        return sleeps.get();
    }

    private void loop() {
        long nextCmCheck = 0;
        long lastCompletion = System.nanoTime();
        try (WorkCompletions wc = WorkCompletions.allocate(BATCH)) {
            while (!stopping) {
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
                cq.channel().await(WAIT_SLICE_MILLIS);
            }
            drain(wc);
        } catch (Throwable t) {
            if (!stopping) {
                handler.failed(t);
            }
        }
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
