package org.panamardma.verbs;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.SendPath.Op;

/**
 * The two-sided verbs of a {@link QueuePair}: receives, and the SENDs that consume them at the peer. Validation and
 * the calls are {@link ReceivePath}'s and {@link SendPosting}'s; this class only names the verbs.
 *
 * <p>Package-private, so users see one class: its public methods are {@link QueuePair}'s (see
 * {@link QueuePairResource} on why the public surface is declared in three files).
 */
abstract sealed class TwoSidedQueuePair extends QueuePairResource permits QueuePair {
    TwoSidedQueuePair(
            ProtectionDomain pd,
            CompletionQueue sendCq,
            CompletionQueue recvCq,
            SharedReceiveQueue srq,
            int port,
            QueuePairCreation c,
            Runnable destroyHook) {
        super(pd, sendCq, recvCq, srq, port, c, destroyHook);
    }

    /**
     * Posts a receive of up to {@code length} bytes into {@code mr} at {@code offset}.
     *
     * <p>Verb: {@code ibv_post_recv}.
     *
     * @param wrId   comes back in the receive's completion
     * @param mr     the region the message lands in (local write access)
     * @param offset where in {@code mr}, in bytes
     * @param length the largest message this receive takes
     * @throws RdmaException with {@code ibv_post_recv}'s errno: ENOMEM when the receive queue is full
     *                       ({@link #receiveQueueDepth()} posted)
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     * @throws IllegalStateException if the QP or the region is closed
     */
    @Verb("ibv_post_recv")
    public void postReceive(long wrId, MemoryRegion mr, long offset, int length) throws RdmaException {
        receives.postReceive(wrId, mr, offset, length);
    }

    /**
     * Posts a receive scattering into the elements of {@code sgl}.
     *
     * <p>Verb: {@code ibv_post_recv}.
     *
     * @param wrId comes back in the receive's completion
     * @param sgl  the scatter list, 1 to the QP's {@code max_recv_sge} elements; copied, reusable when this returns
     * @throws RdmaException with {@code ibv_post_recv}'s errno: ENOMEM when the receive queue is full
     *                       ({@link #receiveQueueDepth()} posted)
     */
    @Verb("ibv_post_recv")
    public void postReceive(long wrId, ScatterGatherList sgl) throws RdmaException {
        receives.postReceive(wrId, sgl);
    }

    /**
     * Posts {@code count} receives of up to {@code length} bytes each into {@code mr}, the i-th at
     * {@code offsets[i]} with {@code wrIds[i]}, in one {@code ibv_post_recv} call (a linked list of requests):
     * one call into the provider, one doorbell, where {@link #postReceive(long, MemoryRegion, long, int) postReceive} makes one
     * per receive. Allocation-free: the arrays are the caller's, the request list is the QP's scratch. At most
     * {@value QueuePair#MAX_RECEIVE_BATCH} per call.
     *
     * <p>Verb: {@code ibv_post_recv}.
     *
     * @param wrIds   the receives' wr_ids, from index 0
     * @param mr      the region the messages land in (local write access)
     * @param offsets where in {@code mr} each receive starts, in bytes
     * @param length  the largest message each receive takes
     * @param count   how many receives, the first {@code count} of each array
     * @throws IllegalArgumentException if {@code count} is not in [1, {@value QueuePair#MAX_RECEIVE_BATCH}] or exceeds an array
     * @throws IndexOutOfBoundsException if a receive lies outside {@code mr} (checked before anything is posted)
     * @throws RdmaException if the provider refused a request (the message says how many of the batch, in order, were
     *                       posted before it: ibv_post_recv posts the requests ahead of the one it returns as bad)
     */
    @Verb("ibv_post_recv")
    public void postReceives(long[] wrIds, MemoryRegion mr, long[] offsets, int length, int count)
            throws RdmaException {
        receives.postReceives(wrIds, mr, offsets, length, count);
    }

    /**
     * SEND of {@code length} bytes of {@code mr} at {@code offset}.
     *
     * <p>Verbs: {@code ibv_wr_send}, {@code ibv_post_send}.
     *
     * @param wrId   comes back in the request's completion (if it is signaled)
     * @param mr     the region the bytes are in (registered in this QP's protection domain)
     * @param offset where in {@code mr}, in bytes
     * @param length bytes sent: at most the peer's posted receive buffer
     * @param flags  {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED, INLINE (where the payload is at most
     *               {@link #maxInlineData()})
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     * @throws IllegalArgumentException for an unknown flag
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_send")
    @Verb("ibv_post_send")
    public void postSend(long wrId, MemoryRegion mr, long offset, int length, int flags) throws RdmaException {
        sends.postOne(Op.SEND, wrId, mr, offset, length, 0L, 0, 0, 0L, 0L, flags);
    }

    /**
     * SEND with 32-bit immediate data (host byte order; the receiver sees it in its completion).
     *
     * <p>Verbs: {@code ibv_wr_send_imm}, {@code ibv_post_send}.
     *
     * @param wrId      comes back in the request's completion (if it is signaled)
     * @param mr        the region the bytes are in (registered in this QP's protection domain)
     * @param offset    where in {@code mr}, in bytes
     * @param length    bytes sent: at most the peer's posted receive buffer
     * @param immediate 32 bits the peer's receive completion carries (it consumes one of the peer's receives)
     * @param flags     {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED, INLINE (where the payload is at most
     *                  {@link #maxInlineData()})
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     * @throws IllegalArgumentException for an unknown flag
     * @throws UnsupportedOperationException on iWARP ({@link #supportsImmediateData()})
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_send_imm")
    @Verb("ibv_post_send")
    public void postSendWithImmediate(long wrId, MemoryRegion mr, long offset, int length, int immediate, int flags)
            throws RdmaException {
        sends.postOne(Op.SEND_WITH_IMM, wrId, mr, offset, length, 0L, 0, immediate, 0L, 0L, flags);
    }

    /**
     * SEND gathering the elements of {@code sgl}.
     *
     * <p>Verbs: {@code ibv_wr_send}, {@code ibv_wr_set_sge_list}, {@code ibv_post_send}.
     *
     * @param wrId  comes back in the request's completion (if it is signaled)
     * @param sgl   the gather list, 1 to the QP's {@code max_send_sge} elements; copied, reusable when this returns
     * @param flags {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IllegalArgumentException for an unknown flag or a list of more SGEs than the QP takes
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_send")
    @Verb("ibv_wr_set_sge_list")
    @Verb("ibv_post_send")
    public void postSend(long wrId, ScatterGatherList sgl, int flags) throws RdmaException {
        sends.postList(Op.SEND, wrId, sgl, 0L, 0, 0, flags);
    }

    /**
     * SEND of bytes copied into the request ({@link SendFlags#INLINE} is implied): {@code data} may be any native
     * segment, registered or not, and is reusable when this returns. At most {@link #maxInlineData()} bytes.
     *
     * <p>Verbs: {@code ibv_wr_send}, {@code ibv_wr_set_inline_data}, {@code ibv_post_send}.
     *
     * @param wrId  comes back in the request's completion (if it is signaled)
     * @param data  the bytes, copied into the request by the provider before this returns
     * @param flags {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED (INLINE is implied)
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IllegalArgumentException if {@code data} is a heap segment or larger than {@link #maxInlineData()}
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_send")
    @Verb("ibv_wr_set_inline_data")
    @Verb("ibv_post_send")
    public void postSendInline(long wrId, MemorySegment data, int flags) throws RdmaException {
        sends.postInline(Op.SEND, wrId, data, 0L, 0, flags);
    }
}
