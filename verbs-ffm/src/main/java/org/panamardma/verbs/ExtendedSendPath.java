package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_mw_bind_info;
import org.panamardma.verbs.ffi.ibv_qp_ex;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * The send backend of a QP created with the extended API ({@code ibv_qp_ex}): {@code ibv_wr_start}, one builder
 * ({@code ibv_wr_send}, {@code ibv_wr_rdma_write}, ...), the data ({@code ibv_wr_set_sge}, {@code _sge_list},
 * {@code _inline_data}), {@code ibv_wr_complete}, each through the function pointer the provider put in its
 * {@code struct ibv_qp_ex}. The only way to FLUSH and ATOMIC WRITE. See {@link SendPath} for the calling contract.
 *
 * <p><b>Abort safety.</b> {@code ibv_wr_start} opens a critical region that only {@code ibv_wr_complete} or
 * {@code ibv_wr_abort} closes; rxe takes its send queue's spinlock there (rdma-core providers/rxe/rxe.c,
 * {@code wr_start}), and a request left open keeps it, so that the next post on the QP, and its destroy, spin for ever
 * (issue 25 item 4). So nothing that can throw runs inside the region: everything the request reads from the
 * caller (inline bytes, a scatter/gather list) is copied into the QP's scratch before {@code ibv_wr_start}, where a
 * closed arena or list throws with nothing started; inside, only the QP's own scratch and the provider's struct are
 * touched. And should anything throw there all the same (a linkage error of a first call, a stack overflow),
 * {@code ibv_wr_abort} discards the request and releases the region before the exception leaves
 * (ibv_wr_post(3): "ibv_wr_abort() will discard all work prepared since ibv_wr_start()").
 */
final class ExtendedSendPath extends SendPath {
    /** The provider's ibv_qp_ex, viewed at the installed rdma-core's size (RdmaCore.qpExView), and its address. */
    private final MemorySegment qpx;

    private final long qpxAddress;
    private final MemorySegment wrStart,
            wrComplete,
            wrAbort,
            wrSend,
            wrSendImm,
            wrRdmaWrite,
            wrRdmaWriteImm,
            wrRdmaRead,
            wrCmpSwp,
            wrFetchAdd,
            wrAtomicWrite,
            wrFlush,
            wrSetSge,
            wrSetSgeList,
            wrSetInlineData;
    private final boolean atomics;
    private final boolean flush;
    private final boolean atomicWrite;
    /** The address of ATOMIC WRITE's 8-byte value, passed by address: QP scratch. */
    private final long atomicValueAddress;
    /** Where a gathering request's elements are copied before ibv_wr_start: QP scratch of max_send_sge entries. */
    private final MemorySegment sgeScratch;
    /** Whether wr_complete (the doorbell) stays in user space on this provider (ProviderTraits). */
    private final boolean criticalComplete;
    /** ibv_wr_bind_mw and ibv_wr_local_inv, NULL unless granted (IBV_QP_EX_WITH_BIND_MW, _LOCAL_INV). */
    private final MemorySegment wrBindMw, wrLocalInv;
    /** The struct ibv_mw_bind_info ibv_wr_bind_mw reads during the call: QP scratch, and its address. */
    private final MemorySegment bindInfo;

    /**
     * @param qpx          the view of the provider's ibv_qp_ex
     * @param grantedOps   the IBV_QP_EX_WITH_* flags the provider granted at creation
     * @param deviceAtomics whether the device has atomics at all (atomic_cap)
     * @param bindInfo      scratch of {@code sizeof(struct ibv_mw_bind_info)} bytes
     */
    ExtendedSendPath(
            MemorySegment qpx,
            long grantedOps,
            boolean deviceAtomics,
            String qpDescription,
            int sendQueueDepth,
            MemorySegment inlineScratch,
            MemorySegment atomicValue,
            MemorySegment sgeScratch,
            MemorySegment bindInfo,
            boolean criticalComplete) {
        super(qpDescription, sendQueueDepth, inlineScratch);
        this.criticalComplete = criticalComplete;
        this.qpx = qpx;
        this.qpxAddress = qpx.address();
        this.atomicValueAddress = atomicValue.address();
        this.sgeScratch = sgeScratch;
        this.bindInfo = bindInfo;
        this.wrBindMw = (grantedOps & verbs_h.IBV_QP_EX_WITH_BIND_MW) != 0
                ? fn(ibv_qp_ex.wr_bind_mw$OFFSET)
                : MemorySegment.NULL;
        this.wrLocalInv = (grantedOps & verbs_h.IBV_QP_EX_WITH_LOCAL_INV) != 0
                ? fn(ibv_qp_ex.wr_local_inv$OFFSET)
                : MemorySegment.NULL;
        this.wrStart = fn(ibv_qp_ex.wr_start$OFFSET);
        this.wrComplete = fn(ibv_qp_ex.wr_complete$OFFSET);
        this.wrAbort = fn(ibv_qp_ex.wr_abort$OFFSET);
        this.wrSend = fn(ibv_qp_ex.wr_send$OFFSET);
        this.wrSendImm = fn(ibv_qp_ex.wr_send_imm$OFFSET);
        this.wrRdmaWrite = fn(ibv_qp_ex.wr_rdma_write$OFFSET);
        this.wrRdmaWriteImm = fn(ibv_qp_ex.wr_rdma_write_imm$OFFSET);
        this.wrRdmaRead = fn(ibv_qp_ex.wr_rdma_read$OFFSET);
        this.wrCmpSwp = fn(ibv_qp_ex.wr_atomic_cmp_swp$OFFSET);
        this.wrFetchAdd = fn(ibv_qp_ex.wr_atomic_fetch_add$OFFSET);
        // members newer than the oldest supported rdma-core: read only where the installed release has them and the
        // provider granted the operation (it refuses IBV_QP_EX_WITH_* flags it does not know)
        this.wrAtomicWrite = sendOpSlot(
                qpx,
                grantedOps,
                verbs_h.IBV_QP_EX_WITH_ATOMIC_WRITE,
                RdmaCore.Feature.ATOMIC_WRITE,
                ibv_qp_ex.wr_atomic_write$OFFSET);
        this.wrFlush = sendOpSlot(
                qpx, grantedOps, verbs_h.IBV_QP_EX_WITH_FLUSH, RdmaCore.Feature.FLUSH, ibv_qp_ex.wr_flush$OFFSET);
        this.wrSetSge = fn(ibv_qp_ex.wr_set_sge$OFFSET);
        this.wrSetSgeList = fn(ibv_qp_ex.wr_set_sge_list$OFFSET);
        this.wrSetInlineData = fn(ibv_qp_ex.wr_set_inline_data$OFFSET);
        // a slot is usable only if its IBV_QP_EX_WITH_* flag was granted and the provider filled it
        this.atomics = deviceAtomics
                && (grantedOps & verbs_h.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP) != 0
                && !isNull(wrCmpSwp)
                && (grantedOps & verbs_h.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD) != 0
                && !isNull(wrFetchAdd);
        this.flush = (grantedOps & verbs_h.IBV_QP_EX_WITH_FLUSH) != 0 && !isNull(wrFlush);
        this.atomicWrite = (grantedOps & verbs_h.IBV_QP_EX_WITH_ATOMIC_WRITE) != 0 && !isNull(wrAtomicWrite);
    }

    private MemorySegment fn(long offset) {
        return qpx.get(ADDRESS, offset);
    }

    /**
     * The function pointer at {@code offset} of the {@code ibv_qp_ex} view {@code qpx} (RdmaCore.qpExView) if the
     * provider granted {@code opFlag} and the installed rdma-core has {@code feature}, else NULL: a member newer than
     * the installed release is never read (and lies outside the view: reading it would throw).
     */
    static MemorySegment sendOpSlot(
            MemorySegment qpx, long grantedOps, int opFlag, RdmaCore.Feature feature, long offset) {
        return (grantedOps & opFlag) != 0 && feature.isAvailable() && offset + ADDRESS.byteSize() <= qpx.byteSize()
                ? qpx.get(ADDRESS, offset)
                : MemorySegment.NULL;
    }

    private static boolean isNull(MemorySegment s) {
        return s.address() == 0;
    }

    boolean atomics() {
        return atomics;
    }

    boolean flush() {
        return flush;
    }

    boolean atomicWrite() {
        return atomicWrite;
    }

    /** Whether windows can be bound and invalidated: both slots granted and filled by the provider. */
    boolean memoryWindows() {
        return !isNull(wrBindMw) && !isNull(wrLocalInv);
    }

    long viewSize() {
        return qpx.byteSize();
    }

    @Override
    void post(
            Op op,
            long wrId,
            int flags,
            long remoteAddress,
            int rkey,
            int immediate,
            long compareAdd,
            long swap,
            long addr,
            int length,
            int lkey)
            throws RdmaException {
        begin();
        try {
            setIdAndFlags(wrId, flags);
            build(op, remoteAddress, rkey, immediate, compareAdd, swap);
            VerbsOps.WR_SET_SGE.invokeExact(wrSetSge, qpxAddress, lkey, addr, length);
        } catch (Throwable t) {
            throw abort(t);
        }
        complete();
    }

    @Override
    void postList(
            Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, MemorySegment sges, int count)
            throws RdmaException {
        // the caller's list, copied before the region opens: a list closed meanwhile throws here, nothing started
        MemorySegment.copy(sges, 0, sgeScratch, 0, count * ScatterGatherList.SGE_SIZE);
        begin();
        try {
            setIdAndFlags(wrId, flags);
            build(op, remoteAddress, rkey, immediate, 0L, 0L);
            VerbsOps.WR_SET_SGE_LIST.invokeExact(wrSetSgeList, qpxAddress, (long) count, sgeScratch.address());
        } catch (Throwable t) {
            throw abort(t);
        }
        complete();
    }

    @Override
    void postInlineScratch(Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, long length)
            throws RdmaException {
        begin();
        try {
            setIdAndFlags(wrId, flags);
            build(op, remoteAddress, rkey, immediate, 0L, 0L);
            VerbsOps.WR_SET_INLINE_DATA.invokeExact(wrSetInlineData, qpxAddress, inlineScratch.address(), length);
        } catch (Throwable t) {
            throw abort(t);
        }
        complete();
    }

    /**
     * One region of {@code n} requests: ibv_wr_start, for each its builder and ibv_wr_set_sge, ibv_wr_complete (one
     * doorbell). Inside the region only the chain's own memory is read (nothing of the caller's native memory,
     * which a chain does not take; the chain's cannot be freed while the chain is in use here); anything thrown there
     * all the same is aborted (see the class comment). A refused region is posted not at all.
     */
    @Override
    void postChain(SendChain chain, int n) throws RdmaException {
        begin();
        try {
            for (int i = 0; i < n; i++) {
                setIdAndFlags(chain.wrId(i), chain.flags(i));
                build(chain.ops[i], chain.remoteAddress(i), chain.rkey(i), chain.immediate(i), 0L, 0L);
                VerbsOps.WR_SET_SGE.invokeExact(wrSetSge, qpxAddress, chain.lkey(i), chain.address(i), chain.length(i));
            }
        } catch (Throwable t) {
            throw abort(t);
        }
        int rc = completeRc();
        if (rc != 0) {
            throw chainFailure("ibv_wr_complete", rc, 0, n);
        }
    }

    /** RDMA FLUSH (draft-talpey-rdma-commit section 4.1); the caller checked {@link #flush()}. */
    void postFlush(long wrId, int flags, long remoteAddress, int rkey, long length, byte type, byte scope)
            throws RdmaException {
        begin();
        try {
            setIdAndFlags(wrId, flags);
            // the scope (level) is linked as a long (VerbsOps.WR_FLUSH), zero-extended from the uint8_t
            VerbsOps.WR_FLUSH.invokeExact(wrFlush, qpxAddress, rkey, remoteAddress, length, type, scope & 0xFFL);
        } catch (Throwable t) {
            throw abort(t);
        }
        complete();
    }

    /** RDMA ATOMIC WRITE (draft-talpey-rdma-commit section 4.2); the caller checked {@link #atomicWrite()}. */
    void postAtomicWrite(long wrId, int flags, long remoteAddress, int rkey, long value) throws RdmaException {
        // through AllMemory, as the ibv_qp_ex's fields: the scratch lives while the gate admits this call
        AllMemory.EVERYWHERE.set(JAVA_LONG, atomicValueAddress, value);
        begin();
        try {
            setIdAndFlags(wrId, flags);
            VerbsOps.WR_ATOMIC_WRITE.invokeExact(wrAtomicWrite, qpxAddress, rkey, remoteAddress, atomicValueAddress);
        } catch (Throwable t) {
            throw abort(t);
        }
        complete();
    }

    @Override
    void postBindWindow(
            long wrId, int flags, MemorySegment mw, int newRkey, MemorySegment mr, long addr, long length, int access)
            throws RdmaException {
        // the bind's description goes into the QP's scratch before the region opens, like every other input
        bindInfo.set(ADDRESS, ibv_mw_bind_info.mr$OFFSET, mr);
        bindInfo.set(JAVA_LONG, ibv_mw_bind_info.addr$OFFSET, addr);
        bindInfo.set(JAVA_LONG, ibv_mw_bind_info.length$OFFSET, length);
        bindInfo.set(JAVA_INT, ibv_mw_bind_info.mw_access_flags$OFFSET, access);
        begin();
        try {
            setIdAndFlags(wrId, flags);
            // the window's struct is held open by the caller (its monitor, QueuePair.postBindMemoryWindow)
            VerbsOps.WR_BIND_MW.invokeExact(wrBindMw, qpxAddress, mw.address(), newRkey, bindInfo.address());
        } catch (Throwable t) {
            throw abort(t);
        }
        complete();
    }

    @Override
    void postLocalInvalidate(long wrId, int flags, int rkey) throws RdmaException {
        begin();
        try {
            setIdAndFlags(wrId, flags);
            VerbsOps.WR_LOCAL_INV.invokeExact(wrLocalInv, qpxAddress, rkey);
        } catch (Throwable t) {
            throw abort(t);
        }
        complete();
    }

    /** ibv_wr_start: opens the region (on rxe, takes the send queue's lock). */
    private void begin() {
        try {
            VerbsOps.WR_VOID.invokeExact(wrStart, qpxAddress);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
    }

    /** The request's id and flags, which the builder that follows takes from the ibv_qp_ex. */
    private void setIdAndFlags(long wrId, int flags) {
        AllMemory.EVERYWHERE.set(JAVA_LONG, qpxAddress + ibv_qp_ex.wr_id$OFFSET, wrId);
        AllMemory.EVERYWHERE.set(JAVA_INT, qpxAddress + ibv_qp_ex.wr_flags$OFFSET, flags);
    }

    /**
     * The backstop: {@code t} was thrown inside the region; ibv_wr_abort discards what was built since ibv_wr_start
     * and closes the region (rxe: releases the lock), then {@code t} goes on. A failure of the abort itself is added
     * to {@code t} as suppressed.
     */
    private RuntimeException abort(Throwable t) {
        try {
            VerbsOps.WR_VOID.invokeExact(wrAbort, qpxAddress);
        } catch (Throwable a) {
            t.addSuppressed(a);
        }
        return CompletionQueue.verbsError(t);
    }

    private void build(Op op, long remoteAddress, int rkey, int immediate, long compareAdd, long swap)
            throws Throwable {
        switch (op) {
            case SEND -> VerbsOps.WR_VOID.invokeExact(wrSend, qpxAddress);
            case SEND_WITH_IMM ->
                VerbsOps.WR_SEND_IMM.invokeExact(wrSendImm, qpxAddress, Integer.reverseBytes(immediate));
            case WRITE -> VerbsOps.WR_RDMA.invokeExact(wrRdmaWrite, qpxAddress, rkey, remoteAddress);
            case WRITE_WITH_IMM ->
                VerbsOps.WR_RDMA_WRITE_IMM.invokeExact(
                        wrRdmaWriteImm, qpxAddress, rkey, remoteAddress, Integer.reverseBytes(immediate));
            case READ -> VerbsOps.WR_RDMA.invokeExact(wrRdmaRead, qpxAddress, rkey, remoteAddress);
            case COMPARE_SWAP ->
                VerbsOps.WR_ATOMIC_CMP_SWP.invokeExact(wrCmpSwp, qpxAddress, rkey, remoteAddress, compareAdd, swap);
            case FETCH_ADD ->
                VerbsOps.WR_ATOMIC_FETCH_ADD.invokeExact(wrFetchAdd, qpxAddress, rkey, remoteAddress, compareAdd);
        }
    }

    /** ibv_wr_complete: posts what was built, or reports why not (ENOMEM/ENOSPC: the send queue is full). */
    private void complete() throws RdmaException {
        int rc = completeRc();
        if (rc != 0) {
            throw postFailure("ibv_wr_complete", rc);
        }
    }

    private int completeRc() {
        try {
            return criticalComplete
                    ? (int) VerbsOps.WR_COMPLETE_CRITICAL.invokeExact(wrComplete, qpxAddress)
                    : (int) VerbsOps.WR_COMPLETE.invokeExact(wrComplete, qpxAddress);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
    }
}
