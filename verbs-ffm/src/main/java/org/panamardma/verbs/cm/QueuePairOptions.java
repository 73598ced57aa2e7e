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

    /**
     * One CQ for sends and receives; 64 requests each way, one SGE each, no inline data.
     *
     * @param cq the completion queue of both sends and receives
     * @return the options
     */
    public static QueuePairOptions of(CompletionQueue cq) {
        return new QueuePairOptions(cq, cq, null, 64, 64, 1, 1, 0, false, false);
    }

    /**
     * These options with the send and receive queue depths given.
     *
     * @param send    send requests outstanding at once ({@code max_send_wr}), at least 1
     * @param receive receives posted at once ({@code max_recv_wr}), at least 1
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if a depth is below 1
     */
    public QueuePairOptions withQueueDepths(int send, int receive) {
        return new QueuePairOptions(
                sendCq, recvCq, srq, send, receive, maxSendSge, maxRecvSge, maxInlineData, signalAll, legacySendPath);
    }

    /**
     * These options with the gather (send) and scatter (receive) element counts given.
     *
     * @param send    gather elements per send request ({@code max_send_sge}), at least 1
     * @param receive scatter elements per receive ({@code max_recv_sge}), at least 1
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if a count is below 1
     */
    public QueuePairOptions withSge(int send, int receive) {
        return new QueuePairOptions(
                sendCq, recvCq, srq, maxSendWr, maxRecvWr, send, receive, maxInlineData, signalAll, legacySendPath);
    }

    /**
     * These options asking for {@code bytes} of inline data per send request.
     *
     * @param bytes inline bytes per send ({@code max_inline_data}), 0 for none; the device may grant more
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public QueuePairOptions withMaxInlineData(int bytes) {
        return new QueuePairOptions(
                sendCq, recvCq, srq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, bytes, signalAll, legacySendPath);
    }

    /**
     * These options with separate CQs for sends and receives.
     *
     * @param send    the CQ of send completions
     * @param receive the CQ of receive completions
     * @return a new instance; this one is unchanged
     */
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

    /**
     * These options receiving from {@code queue} instead of a receive queue of its own.
     *
     * @param queue the SRQ, or null for a receive queue of the QP's own
     * @return a new instance; this one is unchanged
     */
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

    /**
     * These options with every send request completing ({@code sq_sig_all}) if {@code all}.
     *
     * @param all whether every send request generates a completion, whatever its flags
     * @return a new instance; this one is unchanged
     */
    public QueuePairOptions withSignalAll(boolean all) {
        return new QueuePairOptions(
                sendCq, recvCq, srq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, all, legacySendPath);
    }

    /**
     * These options with the QP made without the extended API ({@code rdma_create_qp}) if {@code legacy}.
     *
     * @param legacy whether to use {@code ibv_post_send} (then FLUSH and ATOMIC WRITE are refused)
     * @return a new instance; this one is unchanged
     */
    public QueuePairOptions withLegacySendPath(boolean legacy) {
        return new QueuePairOptions(
                sendCq, recvCq, srq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, signalAll, legacy);
    }
}
