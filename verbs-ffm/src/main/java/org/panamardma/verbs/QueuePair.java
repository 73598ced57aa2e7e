package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.SendPath.Op;
import org.panamardma.verbs.ffi.ibv_qp;
import org.panamardma.verbs.ffi.verbs_h;

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
public final class QueuePair extends NativeResource {
    final ProtectionDomain pd;
    final MemorySegment qp;
    private final int qpNumber;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final String deviceName;
    private final int port;

    /** Admits the posts and receives one at a time, and none after close (instead of this object's monitor). */
    private final CallGate gate = new CallGate();
    /** The most receives {@link #postReceives} posts in one call. */
    public static final int MAX_RECEIVE_BATCH = 64;

    /** The scratch of both paths: native memory owned by the QP, freed only after the gate is closed. */
    private final Arena scratch = Arena.ofShared();
    /** Send requests: capabilities, validation, the send backends. */
    private final SendPosting sends;
    /** Receive requests: validation and ibv_post_recv. */
    private final ReceivePath receives;

    private final Runnable destroyHook;

    QueuePair(
            ProtectionDomain pd,
            CompletionQueue sendCq,
            CompletionQueue recvCq,
            SharedReceiveQueue srq,
            int port,
            QueuePairCreation c,
            Runnable destroyHook) {
        super("queue pair", QueuePairCreation.dependencies(pd, sendCq, recvCq, srq));
        this.pd = pd;
        this.qp = c.qp().reinterpret(ibv_qp.layout().byteSize());
        this.qpNumber = qp.get(JAVA_INT, ibv_qp.qp_num$OFFSET);
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.port = port;
        this.destroyHook = destroyHook;
        Context ctx = pd.context;
        ctx.track(qp, this);
        this.deviceName = ctx.deviceName();
        this.sends = new SendPosting(pd, gate, qp, describe(), c, scratch);
        this.receives = new ReceivePath(gate, qp, describe(), srq != null, c.maxRecvWr(), c.maxRecvSge(), ctx, scratch);
    }

    /** The size of the view of the provider's ibv_qp_ex (0 on the legacy path): for tests. */
    long extendedQpViewSize() {
        return sends.extendedQpViewSize();
    }

    void markConnected() {
        sends.markConnected();
    }

    /** The QP number the device gave it ({@code qp_num}): what the peer names as its destination QP. */
    public int qpNumber() {
        return qpNumber;
    }

    /** The name of the device the QP is on ({@code mlx5_0}, {@code rxe0}...). */
    public String deviceName() {
        return deviceName;
    }

    /** The device port the QP uses (numbered from 1). */
    public int port() {
        return port;
    }

    /** The CQ its send requests complete on. */
    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    /** The CQ its receives complete on. */
    public CompletionQueue receiveCompletionQueue() {
        return recvCq;
    }

    /** The protection domain it was created in: the regions it posts must be registered there. */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * Whether the QP was created with the extended API ({@code ibv_qp_ex}), which FLUSH and ATOMIC WRITE are posted
     * with ({@code ibv_wr_*}); other requests go through {@code ibv_post_send} either way.
     */
    public boolean usesExtendedSendPath() {
        return sends.extended();
    }

    /**
     * Whether {@link #postCompareSwap} and {@link #postFetchAdd} can post: on the extended path, as the provider
     * granted at creation; otherwise as the device's attributes say.
     */
    public boolean supportsAtomics() {
        return sends.atomics();
    }

    /** Whether SEND and WRITE with immediate data can post: not on iWARP, which has no immediate data. */
    public boolean supportsImmediateData() {
        return sends.immediateData();
    }

    /**
     * Whether {@link #postFlush} can post: the installed rdma-core has it ({@link RdmaCore.Feature#FLUSH}, 45 and
     * later), the device has it, and the provider granted {@code IBV_QP_EX_WITH_FLUSH} at creation.
     */
    public boolean supportsFlush() {
        return sends.flush();
    }

    /** Whether {@link #postAtomicWrite} can post: library ({@link RdmaCore.Feature#ATOMIC_WRITE}), device, provider. */
    public boolean supportsAtomicWrite() {
        return sends.atomicWrite();
    }

    /**
     * Whether {@link #postBindMemoryWindow} and {@link #postInvalidate} can post: the device has type 2 windows
     * ({@link DeviceAttributes#supportsMemoryWindows()}) and, on the extended path, the provider granted
     * {@code IBV_QP_EX_WITH_BIND_MW} and {@code IBV_QP_EX_WITH_LOCAL_INV}.
     */
    public boolean supportsMemoryWindows() {
        return sends.memoryWindows();
    }

    /** The largest inline payload the provider granted ({@link #postSendInline}, {@link #postWriteInline}). */
    public int maxInlineData() {
        return sends.maxInlineData();
    }

    /** The send queue's depth the provider granted: at most this many send requests outstanding. */
    public int sendQueueDepth() {
        return sends.maxSendWr();
    }

    /** The receive queue's depth the provider granted: at most this many receives posted. */
    public int receiveQueueDepth() {
        return receives.maxRecvWr();
    }

    /**
     * The QP's current state, as the device reports it (ERR after a failed request: see {@link #reset()}).
     *
     * <p>Verb: {@code ibv_query_qp}.
     */
    @Verb("ibv_query_qp")
    public QpState state() throws RdmaException {
        synchronized (this) {
            checkOpen();
            return QueuePairAttributes.state(qp, describe());
        }
    }

    /**
     * Recovers from the error state: moves the QP to RESET and INIT (outstanding requests are flushed) and returns
     * it as a prepared QP with a new PSN, to be connected again — the peer must reconnect too. This object is no
     * longer usable for posting until then.
     *
     * <p>Verb: {@code ibv_modify_qp}.
     */
    @Verb("ibv_modify_qp")
    public PreparedQueuePair reset() throws RdmaException {
        synchronized (this) {
            checkOpen();
            gate.enterOrThrow(describe()); // no post or receive in progress while the queues are reset
            try {
                sends.markReset();
                QueuePairAttributes.modify(qp, describe(), verbs_h.IBV_QPS_RESET, verbs_h.IBV_QP_STATE, null);
                PreparedQueuePair.toInit(this, port);
            } finally {
                gate.leave();
            }
        }
        return PreparedQueuePair.rewrap(this);
    }

    /**
     * Posts a receive of up to {@code length} bytes into {@code mr} at {@code offset}.
     *
     * <p>Verb: {@code ibv_post_recv}.
     */
    @Verb("ibv_post_recv")
    public void postReceive(long wrId, MemoryRegion mr, long offset, int length) throws RdmaException {
        receives.postReceive(wrId, mr, offset, length);
    }

    /**
     * Posts a receive scattering into the elements of {@code sgl}.
     *
     * <p>Verb: {@code ibv_post_recv}.
     */
    @Verb("ibv_post_recv")
    public void postReceive(long wrId, ScatterGatherList sgl) throws RdmaException {
        receives.postReceive(wrId, sgl);
    }

    /**
     * Posts {@code count} receives of up to {@code length} bytes each into {@code mr}, the i-th at
     * {@code offsets[i]} with {@code wrIds[i]}, in one {@code ibv_post_recv} call (a linked list of requests):
     * one call into the provider, one doorbell, where {@link #postReceive(long, MemoryRegion, long, int)} makes one
     * per receive. Allocation-free: the arrays are the caller's, the request list is the QP's scratch. At most
     * {@value #MAX_RECEIVE_BATCH} per call.
     *
     * <p>Verb: {@code ibv_post_recv}.
     *
     * @throws IllegalArgumentException if {@code count} is not in [1, {@value #MAX_RECEIVE_BATCH}] or exceeds an array
     * @throws IndexOutOfBoundsException if a receive lies outside {@code mr} (checked before anything is posted)
     * @throws RdmaException if the provider refused a request (the message says how many of the batch, in order,
     *     were posted before it: ibv_post_recv posts the requests ahead of the one it returns as bad)
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
     */
    @Verb("ibv_wr_send")
    @Verb("ibv_wr_set_inline_data")
    @Verb("ibv_post_send")
    public void postSendInline(long wrId, MemorySegment data, int flags) throws RdmaException {
        sends.postInline(Op.SEND, wrId, data, 0L, 0, flags);
    }

    /**
     * RDMA WRITE of {@code length} bytes of {@code mr} at {@code offset} to the peer's {@code remoteAddress}.
     *
     * <p>Verbs: {@code ibv_wr_rdma_write}, {@code ibv_post_send}.
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
     */
    @Verb("ibv_wr_rdma_write")
    @Verb("ibv_wr_set_sge_list")
    @Verb("ibv_post_send")
    public void postWrite(long wrId, ScatterGatherList sgl, long remoteAddress, int rkey, int flags)
            throws RdmaException {
        sends.postList(Op.WRITE, wrId, sgl, remoteAddress, rkey, 0, flags);
    }

    /**
     * RDMA WRITE of inline data (see {@link #postSendInline}).
     *
     * <p>Verbs: {@code ibv_wr_rdma_write}, {@code ibv_wr_set_inline_data}, {@code ibv_post_send}.
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
     * @throws UnsupportedOperationException where the installed rdma-core is older than 45 (checked first: the message
     *                                       names both releases and {@code ibv_wr_flush}), or the device cannot FLUSH
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
     * @param newRkey the window's next key, usually {@link MemoryWindow#nextRkey()} (only the low byte may change)
     * @param access  a non-empty subset of {@link Access#REMOTE_READ}, {@link Access#REMOTE_WRITE},
     *                {@link Access#REMOTE_ATOMIC}
     * @throws UnsupportedOperationException if the queue pair cannot bind windows ({@link #supportsMemoryWindows()})
     * @throws IllegalArgumentException if window or region is of another protection domain, the region lacks
     *         {@link Access#MW_BIND} (C10-73) or, for remote write or atomic rights, {@link Access#LOCAL_WRITE}
     *         (C10-74), the range is empty or outside the region, {@code access} is not remote rights only, or the key
     *         is not one of the window's
     * @throws IllegalStateException if the window is bound already (o10-37.2.30), or anything is closed
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
     * @throws IllegalStateException if the window is not bound ({@link MemoryWindow#isBound()}), or is closed
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
     * @throws IllegalArgumentException if the chain is empty or longer than the send queue
     * @throws UnsupportedOperationException if a request's opcode is one the QP cannot post (immediate data on iWARP)
     * @throws IllegalStateException if the QP or a region of the chain is closed, or the QP is not connected
     * @throws ChainPostException if the provider refused a request: which one, and that those before it were posted
     *     and none after it
     */
    @Verb("ibv_post_send")
    public void postChain(SendChain chain) throws RdmaException {
        sends.postChain(chain);
    }

    @Override
    protected void destroy() {
        // no post or receive in progress, and none after this: then the QP and its scratch can go
        if (!gate.close(CallGate.CLOSE_TIMEOUT_NANOS)) {
            throw new IllegalStateException(describe() + ": a post did not return within "
                    + CallGate.CLOSE_TIMEOUT_NANOS / 1_000_000_000 + " s; the QP and its memory are left allocated "
                    + "rather than freed under it");
        }
        pd.context.untrack(qp);
        try {
            if (destroyHook != null) {
                destroyHook.run();
            } else {
                int rc = verbs_h.ibv_destroy_qp(qp);
                if (rc != 0) {
                    throw new IllegalStateException("ibv_destroy_qp failed: " + Errno.name(rc));
                }
            }
        } finally {
            scratch.close();
        }
    }

    @Override
    protected String describe() {
        return "queue pair " + qpNumber + " on " + deviceName;
    }
}
