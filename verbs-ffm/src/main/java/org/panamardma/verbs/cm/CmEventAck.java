package org.panamardma.verbs.cm;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;
import org.panamardma.verbs.RdmaException;

/**
 * librdmacm's rule for an event {@code rdma_get_cm_event} returned: it is acked by {@code rdma_ack_cm_event} exactly
 * once, whatever copying it did, because {@code rdma_destroy_id} waits until every event of its id is acked (an
 * event left unacked hangs its id's close for ever; rdma_cma.h, {@code rdma_ack_cm_event}). When the copy fails, its
 * exception is the one thrown (it says what went wrong) and a failed ack rides along as suppressed instead of
 * replacing it, which a {@code throw} in a {@code finally} did before f44fe1e (Error Prone's Finally check).
 */
final class CmEventAck {
    private CmEventAck() {}

    /** {@code rdma_ack_cm_event} of one event, throwing with its errno when it fails. */
    @FunctionalInterface
    interface Ack {
        void ack(MemorySegment event) throws RdmaException;
    }

    /**
     * Copies {@code event} with {@code copy}, then acks it with {@code ack}, also when the copy throws.
     *
     * @return what {@code copy} returned
     * @throws RdmaException the ack's failure, after a copy that succeeded
     */
    static <T> T copyThenAck(MemorySegment event, Function<MemorySegment, T> copy, Ack ack) throws RdmaException {
        T copied;
        try {
            copied = copy.apply(event);
        } catch (RuntimeException | Error e) {
            try {
                ack.ack(event);
            } catch (RdmaException | RuntimeException ackFailure) {
                e.addSuppressed(ackFailure);
            }
            throw e;
        }
        ack.ack(event);
        return copied;
    }
}
