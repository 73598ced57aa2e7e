package org.panamardma.verbs.connection;

import org.panamardma.verbs.ChainPostException;
import org.panamardma.verbs.DoorbellRefusedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link SendQueue} ends its connection after a post that left the send queue unable to go on in order: it
 * marks the connection failed (under the post order, so nothing more is posted) and has it disconnected on the poller
 * thread, which moves the queue pair to the error state and flushes what is on the send queue (a flushed request
 * completes whether signaled or not: rdma-core and the kernel's rxe, flush_send_queue), settling their futures.
 */
final class PostFailureEnd {
    private static final Logger LOG = LoggerFactory.getLogger(SendQueue.class);

    private final String name;
    private final ConnectionFailure failure;
    /** Disconnects, on the poller thread (EstablishedConnection). */
    private final Runnable disconnect;

    PostFailureEnd(String name, ConnectionFailure failure, Runnable disconnect) {
        this.name = name;
        this.failure = failure;
        this.disconnect = disconnect;
    }

    /**
     * A chain's post was refused after some of its requests went to the send queue: they are unsignaled, and the
     * request meant to tell of their completion was not posted.
     */
    void afterPartialPost(ChainPostException e) {
        LOG.warn("{}: {}; ending the connection to flush the part posted", name, e.getMessage());
        failure.mark(new ConnectionClosedException(name + ": a chained post failed part-way: " + e.getMessage(), e));
        disconnect.run();
    }

    /**
     * A post's requests went to the send queue but the kernel refused the doorbell that starts them
     * ({@link DoorbellRefusedException}: the posting thread's credentials are not the ones the device was opened
     * with). rxe would carry them out at the next doorbell, siw never, and its queue then takes no more. They stay
     * pending: the flush says how each really ended (flushed, or done if the device carried it out first), and what
     * is still pending fails with this cause once the connection settles. The disconnect runs on the poller thread
     * because the kernel would refuse rdma_cm's command from the posting one too.
     */
    void afterRefusedDoorbell(DoorbellRefusedException e) {
        LOG.warn("{}: {}; ending the connection", name, e.getMessage());
        failure.mark(
                new ConnectionClosedException(name + ": the send queue's doorbell was refused: " + e.getMessage(), e));
        disconnect.run();
    }
}
