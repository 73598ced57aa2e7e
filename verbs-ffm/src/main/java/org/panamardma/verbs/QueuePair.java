package org.panamardma.verbs;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.SendPath.Op;

/**
 * A connected reliable-connected queue pair: every send opcode, and receives. Obtained only from
 * {@link PreparedQueuePair#connect} (or rdma_cm), so an unconnected QP cannot post sends — the type says so.
 *
 * <p><b>Send paths.</b> Where the device offers the extended QP API ({@code ibv_qp_ex}, rxe) FLUSH and ATOMIC WRITE go
 * through its {@code ibv_wr_*} verbs, every other request through {@code ibv_post_send}; where it has none (siw) FLUSH
 * and ATOMIC WRITE are refused ({@link SendPosting} decides; {@link ReceivePath} posts the receives).
 *
 * <p><b>Data path.</b> Every post validates its arguments (ranges inside the memory region, alignment of atomics)
 * before touching the queue, then makes one call (three for FLUSH and ATOMIC WRITE) through cached function pointers
 * into native scratch owned by the QP. Nothing is allocated. Posts and receives pass the QP's {@link CallGate}, one
 * at a time, which also keeps {@link #close()} from destroying the QP under a post; post from several threads if you
 * like, but one thread per QP is fastest.
 *
 * <p><b>Completions</b> arrive on the CQs with the {@code wrId} given; only {@link SendFlags#SIGNALED} requests (or
 * all, with {@link QueuePairBuilder#signalAll}) complete when successful. Post flags are those of {@link SendFlags}.
 *
 * <p>Verbs of {@link #close()}: {@code ibv_destroy_qp}, {@code rdma_destroy_qp}.
 */
@Verb("ibv_destroy_qp")
@Verb("rdma_destroy_qp")
public final class QueuePair extends TwoSidedQueuePair {
    /** The most receives {@link #postReceives postReceives} posts in one call. */
    public static final int MAX_RECEIVE_BATCH = 64;

    QueuePair(
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
     * Recovers from the error state: moves the QP to RESET and INIT (outstanding requests are flushed) and returns
     * it as a prepared QP with a new PSN, to be connected again — the peer must reconnect too. This object is no
     * longer usable for posting until then.
     *
     * <p>Verb: {@code ibv_modify_qp}.
     *
     * @return the QP in INIT, to connect again with the peer's new endpoint
     * @throws RdmaException with {@code ibv_modify_qp}'s errno; the QP is then in an unknown state: close it
     */
    @Verb("ibv_modify_qp")
    public PreparedQueuePair reset() throws RdmaException {
        synchronized (this) {
            checkOpen();
            PreparedQueuePair.resetToInit(this, guard.gate, sends, port);
        }
        return PreparedQueuePair.rewrap(this);
    }

    /**
     * RDMA WRITE of {@code length} bytes of {@code mr} at {@code offset} to the peer's {@code remoteAddress}.
     *
     * <p>Verbs: {@code ibv_wr_rdma_write}, {@code ibv_post_send}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param mr            the region the bytes are in (registered in this QP's protection domain)
     * @param offset        where in {@code mr}, in bytes
     * @param length        bytes written
     * @param remoteAddress the peer's virtual address the bytes go to
     * @param rkey          the peer region's key (remote write access)
     * @param flags         {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED, INLINE (where the payload is at most
     *                      {@link #maxInlineData()})
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     * @throws IllegalArgumentException for an unknown flag
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_rdma_write")
    @Verb("ibv_post_send")
    public void postWrite(long wrId, MemoryRegion mr, long offset, int length, long remoteAddress, int rkey, int flags)
            throws RdmaException {
        sends.postOne(Op.WRITE, wrId, mr, offset, length, remoteAddress, rkey, 0, 0L, 0L, flags);
    }

    /**
     * RDMA WRITE gathering the elements of {@code sgl}.
     *
     * <p>Verbs: {@code ibv_wr_rdma_write}, {@code ibv_wr_set_sge_list}, {@code ibv_post_send}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param sgl           the gather list, 1 to the QP's {@code max_send_sge} elements; copied, reusable when this
     *                      returns
     * @param remoteAddress the peer's virtual address the bytes go to, contiguously
     * @param rkey          the peer region's key (remote write access)
     * @param flags         {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IllegalArgumentException for an unknown flag or a list of more SGEs than the QP takes
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_rdma_write")
    @Verb("ibv_wr_set_sge_list")
    @Verb("ibv_post_send")
    public void postWrite(long wrId, ScatterGatherList sgl, long remoteAddress, int rkey, int flags)
            throws RdmaException {
        sends.postList(Op.WRITE, wrId, sgl, remoteAddress, rkey, 0, flags);
    }

    /**
     * RDMA WRITE of inline data (see {@link #postSendInline postSendInline}).
     *
     * <p>Verbs: {@code ibv_wr_rdma_write}, {@code ibv_wr_set_inline_data}, {@code ibv_post_send}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param data          the bytes, copied into the request by the provider before this returns
     * @param remoteAddress the peer's virtual address the bytes go to
     * @param rkey          the peer region's key (remote write access)
     * @param flags         {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED (INLINE is implied)
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IllegalArgumentException if {@code data} is a heap segment or larger than {@link #maxInlineData()}
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_rdma_write")
    @Verb("ibv_wr_set_inline_data")
    @Verb("ibv_post_send")
    public void postWriteInline(long wrId, MemorySegment data, long remoteAddress, int rkey, int flags)
            throws RdmaException {
        sends.postInline(Op.WRITE, wrId, data, remoteAddress, rkey, flags);
    }

    /**
     * RDMA WRITE with immediate data: also consumes a receive at the peer, which completes with the value.
     *
     * <p>Verbs: {@code ibv_wr_rdma_write_imm}, {@code ibv_post_send}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param mr            the region the bytes are in (registered in this QP's protection domain)
     * @param offset        where in {@code mr}, in bytes
     * @param length        bytes written
     * @param remoteAddress the peer's virtual address the bytes go to
     * @param rkey          the peer region's key (remote write access)
     * @param immediate     32 bits the peer's receive completion carries (it consumes one of the peer's receives)
     * @param flags         {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED, INLINE (where the payload is at most
     *                      {@link #maxInlineData()})
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     * @throws IllegalArgumentException for an unknown flag
     * @throws UnsupportedOperationException on iWARP ({@link #supportsImmediateData()})
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_rdma_write_imm")
    @Verb("ibv_post_send")
    public void postWriteWithImmediate(
            long wrId, MemoryRegion mr, long offset, int length, long remoteAddress, int rkey, int immediate, int flags)
            throws RdmaException {
        sends.postOne(Op.WRITE_WITH_IMM, wrId, mr, offset, length, remoteAddress, rkey, immediate, 0L, 0L, flags);
    }

    /**
     * RDMA READ of {@code length} bytes at the peer's {@code remoteAddress} into {@code mr} at {@code offset}.
     *
     * <p>Verbs: {@code ibv_wr_rdma_read}, {@code ibv_post_send}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param mr            the region the bytes land in (local write access)
     * @param offset        where in {@code mr}, in bytes
     * @param length        bytes read, at most the port's {@code max_msg_sz}
     * @param remoteAddress the peer's virtual address read from
     * @param rkey          the peer region's key (remote read access)
     * @param flags         {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     * @throws IllegalArgumentException for an unknown flag
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_rdma_read")
    @Verb("ibv_post_send")
    public void postRead(long wrId, MemoryRegion mr, long offset, int length, long remoteAddress, int rkey, int flags)
            throws RdmaException {
        sends.postOne(Op.READ, wrId, mr, offset, length, remoteAddress, rkey, 0, 0L, 0L, flags);
    }

    /**
     * ATOMIC FETCH AND ADD (RFC 7306 section 5... as in InfiniBand): adds {@code add} to the 64-bit word at the
     * peer's 8-byte aligned {@code remoteAddress}; the word's previous value lands in {@code result} at
     * {@code offset} (8 bytes, host byte order).
     *
     * <p>Verbs: {@code ibv_wr_atomic_fetch_add}, {@code ibv_post_send}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param result        the region the previous value lands in (local write access)
     * @param offset        where in {@code result}: 8 bytes, 8-byte aligned
     * @param remoteAddress the peer's virtual address of the word, 8-byte aligned
     * @param rkey          the peer region's key (remote atomic access)
     * @param add           the value added, wrapping at 64 bits
     * @param flags         {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IllegalArgumentException for an unaligned address or result, or an unknown flag
     * @throws UnsupportedOperationException if the QP cannot post atomics ({@link #supportsAtomics()}; siw)
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_atomic_fetch_add")
    @Verb("ibv_post_send")
    public void postFetchAdd(
            long wrId, MemoryRegion result, long offset, long remoteAddress, int rkey, long add, int flags)
            throws RdmaException {
        sends.postOne(Op.FETCH_ADD, wrId, result, offset, 8, remoteAddress, rkey, 0, add, 0L, flags);
    }

    /**
     * ATOMIC COMPARE AND SWAP: if the 64-bit word at the peer's 8-byte aligned {@code remoteAddress} equals
     * {@code compare}, it becomes {@code swap}; its previous value lands in {@code result} at {@code offset}.
     *
     * <p>Verbs: {@code ibv_wr_atomic_cmp_swp}, {@code ibv_post_send}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param result        the region the previous value lands in (local write access)
     * @param offset        where in {@code result}: 8 bytes, 8-byte aligned
     * @param remoteAddress the peer's virtual address of the word, 8-byte aligned
     * @param rkey          the peer region's key (remote atomic access)
     * @param compare       the value the word must hold
     * @param swap          the value it then gets
     * @param flags         {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IllegalArgumentException for an unaligned address or result, or an unknown flag
     * @throws UnsupportedOperationException if the QP cannot post atomics ({@link #supportsAtomics()}; siw)
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_atomic_cmp_swp")
    @Verb("ibv_post_send")
    public void postCompareSwap(
            long wrId,
            MemoryRegion result,
            long offset,
            long remoteAddress,
            int rkey,
            long compare,
            long swap,
            int flags)
            throws RdmaException {
        sends.postOne(Op.COMPARE_SWAP, wrId, result, offset, 8, remoteAddress, rkey, 0, compare, swap, flags);
    }

    /**
     * RDMA FLUSH (draft-talpey-rdma-commit section 4.1): makes data previously written to the peer's memory
     * globally visible or persistent. With {@link FlushScope#MEMORY_REGION} the whole region of {@code rkey} is
     * flushed. The peer's region must grant {@link FlushType#requiredAccess()}, else the request completes with
     * {@link WcStatus#REM_ACCESS_ERR}.
     *
     * <p>Verb: {@code ibv_wr_flush}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param remoteAddress the peer's virtual address of the range flushed (ignored for the whole region)
     * @param rkey          the peer region's key; it must grant the type's access
     * @param length        bytes flushed from {@code remoteAddress}, not negative
     * @param type          global visibility or persistence
     * @param scope         the range or the whole region of {@code rkey}
     * @param flags         {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED
     * @throws UnsupportedOperationException where the installed rdma-core is older than 45 (checked first: the message
     *                                       names both releases and {@code ibv_wr_flush}), or the device cannot FLUSH
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IllegalArgumentException for a negative length or an unknown flag
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_flush")
    public void postFlush(
            long wrId, long remoteAddress, int rkey, long length, FlushType type, FlushScope scope, int flags)
            throws RdmaException {
        sends.postFlush(wrId, remoteAddress, rkey, length, type, scope, flags);
    }

    /**
     * RDMA ATOMIC WRITE (draft-talpey-rdma-commit section 4.2): writes the 64-bit {@code value} (host byte order)
     * to the peer's 8-byte aligned {@code remoteAddress} as one indivisible store.
     *
     * <p>Verb: {@code ibv_wr_atomic_write}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param remoteAddress the peer's virtual address of the word, 8-byte aligned
     * @param rkey          the peer region's key (remote write access)
     * @param value         the 64 bits stored
     * @param flags         {@link SendFlags} bits: SIGNALED, FENCE, SOLICITED
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws UnsupportedOperationException where the installed rdma-core (older than 44) or the device cannot ATOMIC
     *                                       WRITE
     * @throws IllegalArgumentException for an unaligned address or an unknown flag
     * @throws IllegalStateException if the QP is not connected, or it or a region is closed
     */
    @Verb("ibv_wr_atomic_write")
    public void postAtomicWrite(long wrId, long remoteAddress, int rkey, long value, int flags) throws RdmaException {
        sends.postAtomicWrite(wrId, remoteAddress, rkey, value, flags);
    }

    /**
     * Binds the type 2 window {@code mw} to {@code length} bytes of {@code mr} at {@code offset} under the key
     * {@code newRkey} ({@code IBV_WR_BIND_MW}; {@code ibv_wr_bind_mw} on the extended path): from when the request
     * executes, the peer of this queue pair (and only it) may access that range with {@code access}, addressing
     * it by its virtual address and {@code newRkey}, until the window is invalidated ({@link #postInvalidate}, or
     * the peer's Send With Invalidate) or closed. Requests posted after the bind on this queue pair execute after
     * it. The window's {@link MemoryWindow#rkey()} is {@code newRkey} when this returns.
     *
     * <p>Verbs: {@code ibv_wr_bind_mw}, {@code ibv_post_send}.
     *
     * @param wrId    comes back in the request's completion (if it is signaled)
     * @param mw      a type 2 window of this QP's protection domain, not bound
     * @param newRkey the window's next key, usually {@link MemoryWindow#nextRkey()} (only the low byte may change)
     * @param mr      the region the window exposes part of
     * @param offset  where the window starts in {@code mr}, in bytes
     * @param length  the window's length in bytes, at least 1
     * @param access  a non-empty subset of {@link Access#REMOTE_READ}, {@link Access#REMOTE_WRITE},
     *                {@link Access#REMOTE_ATOMIC}
     * @param flags   {@link SendFlags} bits but INLINE
     * @throws UnsupportedOperationException if the queue pair cannot bind windows ({@link #supportsMemoryWindows()})
     * @throws IllegalArgumentException if window or region is of another protection domain, the region lacks
     *                                  {@link Access#MW_BIND} (C10-73) or, for remote write or atomic rights,
     *                                  {@link Access#LOCAL_WRITE} (C10-74), the range is empty or outside the region,
     *                                  {@code access} is not remote rights only, or the key is not one of the window's
     * @throws IllegalStateException if the window is bound already (o10-37.2.30), or anything is closed
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     */
    @Verb("ibv_wr_bind_mw")
    @Verb("ibv_post_send")
    public void postBindMemoryWindow(
            long wrId,
            MemoryWindow mw,
            int newRkey,
            MemoryRegion mr,
            long offset,
            long length,
            java.util.Set<Access> access,
            int flags)
            throws RdmaException {
        sends.postBindMemoryWindow(wrId, mw, newRkey, mr, offset, length, access, flags);
    }

    /**
     * Invalidates the bound window {@code mw} ({@code IBV_WR_LOCAL_INV} of its current key; {@code ibv_wr_local_inv}):
     * once the request completes, the peer's accesses with that key fail. Post it on the queue pair the window was
     * bound through.
     *
     * <p>Verbs: {@code ibv_wr_local_inv}, {@code ibv_post_send}.
     *
     * @param wrId  comes back in the request's completion (if it is signaled)
     * @param mw    the bound window
     * @param flags {@link SendFlags} bits but INLINE
     * @throws IllegalStateException if the window is not bound ({@link MemoryWindow#isBound()}), or is closed
     * @throws RdmaException if the provider refuses the request: ENOMEM (rxe's ibv_wr_complete: ENOSPC) when the send
     *                       queue is full, {@link #sendQueueDepth()} outstanding (poll completions first); EINVAL for a
     *                       request the QP cannot take
     * @throws IllegalArgumentException for the INLINE flag
     */
    @Verb("ibv_wr_local_inv")
    @Verb("ibv_post_send")
    public void postInvalidate(long wrId, MemoryWindow mw, int flags) throws RdmaException {
        sends.postInvalidate(wrId, mw, flags);
    }

    /**
     * Posts the requests of {@code chain}, in order, in one post: one {@code ibv_post_send} of a linked list of
     * requests (one {@code ibv_wr_start} ... {@code ibv_wr_complete} region where every opcode goes through the
     * {@code ibv_wr_*} verbs), hence one call into the provider and one doorbell where posting them one by one makes
     * one each. The chain is copied: it may be cleared and reused when this returns. Allocation-free.
     *
     * <p>Verb: {@code ibv_post_send}.
     *
     * @param chain the requests, 1 to the send queue's depth; copied
     * @throws IllegalArgumentException if the chain is empty or longer than the send queue
     * @throws UnsupportedOperationException if a request's opcode is one the QP cannot post (immediate data on iWARP)
     * @throws IllegalStateException if the QP or a region of the chain is closed, or the QP is not connected
     * @throws ChainPostException if the provider refused a request: which one, and that those before it were posted and
     *                            none after it
     */
    @Verb("ibv_post_send")
    public void postChain(SendChain chain) throws RdmaException {
        sends.postChain(chain);
    }
}
