package org.panamardma.verbs.cm;

import java.util.Objects;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.SharedReceiveQueue;

/**
 * The reliable-connected queue pair {@link CmId#createQueuePair} creates on an rdma_cm id: the same choices as
 * {@link org.panamardma.verbs.QueuePairBuilder}, as a value. {@code QueuePairOptions.of(cq).withQueueDepths(128, 128)}.
 *
 * @param sendCq         completion queue of the send queue (on the id's device context)
 * @param recvCq         completion queue of the receive queue
 * @param srq            shared receive queue, or null for the QP's own receive queue
 * @param maxSendWr      outstanding send requests
 * @param maxRecvWr      outstanding receives (ignored with an SRQ)
 * @param maxSendSge     scatter/gather entries per send request
 * @param maxRecvSge     scatter/gather entries per receive
 * @param maxInlineData  largest inline payload (the device may grant more)
 * @param signalAll      every send request completes, not only SIGNALED ones
 * @param legacySendPath use {@code ibv_post_send} even where the device has the extended QP API (then FLUSH and
 *                       ATOMIC WRITE are refused)
 */
public record QueuePairOptions(
        CompletionQueue sendCq,
        CompletionQueue recvCq,
        SharedReceiveQueue srq,
        int maxSendWr,
        int maxRecvWr,
        int maxSendSge,
        int maxRecvSge,
        int maxInlineData,
        boolean signalAll,
        boolean legacySendPath) {
    /** Options; refuses missing CQs and counts below 1. */
    public QueuePairOptions {
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(recvCq, "recvCq");
        positive("maxSendWr", maxSendWr);
        positive("maxRecvWr", maxRecvWr);
        positive("maxSendSge", maxSendSge);
        positive("maxRecvSge", maxRecvSge);
        if (maxInlineData < 0) {
            throw new IllegalArgumentException("maxInlineData must not be negative: " + maxInlineData);
        }
    }

    private static void positive(String name, int n) {
        if (n < 1) {
            throw new IllegalArgumentException(name + " must be positive: " + n);
        }
    }

    /** One CQ for sends and receives; 64 requests each way, one SGE each, no inline data. */
    public static QueuePairOptions of(CompletionQueue cq) {
        return new QueuePairOptions(cq, cq, null, 64, 64, 1, 1, 0, false, false);
    }

    /** These options with the send and receive queue depths given. */
    public QueuePairOptions withQueueDepths(int send, int receive) {
        return new QueuePairOptions(
                sendCq, recvCq, srq, send, receive, maxSendSge, maxRecvSge, maxInlineData, signalAll, legacySendPath);
    }

    /** These options with the gather (send) and scatter (receive) element counts given. */
    public QueuePairOptions withSge(int send, int receive) {
        return new QueuePairOptions(
                sendCq, recvCq, srq, maxSendWr, maxRecvWr, send, receive, maxInlineData, signalAll, legacySendPath);
    }

    /** These options asking for {@code bytes} of inline data per send request. */
    public QueuePairOptions withMaxInlineData(int bytes) {
        return new QueuePairOptions(
                sendCq, recvCq, srq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, bytes, signalAll, legacySendPath);
    }

    /** These options with separate CQs for sends and receives. */
    public QueuePairOptions withCompletionQueues(CompletionQueue send, CompletionQueue receive) {
        return new QueuePairOptions(
                send,
                receive,
                srq,
                maxSendWr,
                maxRecvWr,
                maxSendSge,
                maxRecvSge,
                maxInlineData,
                signalAll,
                legacySendPath);
    }

    /** These options receiving from {@code queue} instead of a receive queue of its own. */
    public QueuePairOptions withSharedReceiveQueue(SharedReceiveQueue queue) {
        return new QueuePairOptions(
                sendCq,
                recvCq,
                queue,
                maxSendWr,
                maxRecvWr,
                maxSendSge,
                maxRecvSge,
                maxInlineData,
                signalAll,
                legacySendPath);
    }

    /** These options with every send request completing ({@code sq_sig_all}) if {@code all}. */
    public QueuePairOptions withSignalAll(boolean all) {
        return new QueuePairOptions(
                sendCq, recvCq, srq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, all, legacySendPath);
    }

    /** These options with the QP made without the extended API ({@code rdma_create_qp}) if {@code legacy}. */
    public QueuePairOptions withLegacySendPath(boolean legacy) {
        return new QueuePairOptions(
                sendCq, recvCq, srq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, signalAll, legacy);
    }
}
