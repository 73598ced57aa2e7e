package org.panamardma.verbs.connection;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongConsumer;

/**
 * The unsignaled-SEND policy of an {@link RdmaConnection} ({@link ConnectionOptions#sendSignalInterval()}): which
 * plain SENDs may be posted without a completion of their own, and which are done when a later signaled request
 * of the send queue completes (a reliable connection completes its send queue in order: IBTA 10.8.6, and the
 * kernel's rxe and rdma-core complete a flushed queue the same way).
 *
 * <p>{@link #mustSignal}, {@link #posted} and {@link #track} are called under the {@link SendQueue}'s post-order
 * lock; {@link #completeBefore} on the poller thread, the FIFO's one consumer.
 */
final class UnsignaledSends {
    /** A SEND posted unsignaled: done when a later signaled request of the send queue completes. */
    private record Unsignaled(long seq, long wrId) {}

    private final int interval;
    /** SENDs posted unsignaled since the last signaled request: under the post-order lock. */
    private int run;
    /** Unsignaled SENDs in posting order: added under the post-order lock, taken by the poller. */
    private final ConcurrentLinkedQueue<Unsignaled> posted = new ConcurrentLinkedQueue<>();

    UnsignaledSends(int interval) {
        this.interval = interval;
    }

    /**
     * Whether the SEND about to be posted must be signaled. Every {@code interval}-th is; so is one posted when
     * {@code lastSlotOrWaiters} (it takes the send queue's last free slot, or requests wait for one): their permits
     * come back only through a completion, and an unsignaled request makes none, so the last request before a wait
     * is always signaled and no wait can outlast the requests in flight.
     */
    boolean mustSignal(boolean lastSlotOrWaiters) {
        return run + 1 >= interval || lastSlotOrWaiters;
    }

    /** A request was posted, signaled or not: the run of unsignaled SENDs restarts at a signaled one. */
    void posted(boolean signaled) {
        run = signaled ? 0 : run + 1;
    }

    /**
     * Remembers the unsignaled request {@code wrId}, posted {@code seq}-th: before the post, since its error
     * completion may come at once.
     */
    void track(long seq, long wrId) {
        posted.add(new Unsignaled(seq, wrId));
    }

    /** {@return how many unsignaled SENDs wait for a later request's completion (a snapshot)} */
    int waiting() {
        return posted.size();
    }

    /**
     * The signaled request posted {@code seq}-th completed: so did every unsignaled request posted before it, whose
     * wr_ids go to {@code done} in posting order.
     */
    void completeBefore(long seq, LongConsumer done) {
        Unsignaled u;
        while ((u = posted.peek()) != null && u.seq() < seq) {
            posted.poll();
            done.accept(u.wrId());
        }
    }
}
