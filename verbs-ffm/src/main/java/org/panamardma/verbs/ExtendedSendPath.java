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
 */
final class ExtendedSendPath extends SendPath {
    /** The provider's ibv_qp_ex, viewed at the installed rdma-core's size (RdmaCore.qpExView). */
    private final MemorySegment qpx;
    private final MemorySegment wrStart, wrComplete, wrSend, wrSendImm, wrRdmaWrite, wrRdmaWriteImm, wrRdmaRead,
            wrCmpSwp, wrFetchAdd, wrAtomicWrite, wrFlush, wrSetSge, wrSetSgeList, wrSetInlineData;
    private final boolean atomics;
    private final boolean flush;
    private final boolean atomicWrite;
    /** ATOMIC WRITE's 8-byte value, passed by address: QP scratch. */
    private final MemorySegment atomicValue;
    /** ibv_wr_bind_mw and ibv_wr_local_inv, NULL unless granted (IBV_QP_EX_WITH_BIND_MW, _LOCAL_INV). */
    private final MemorySegment wrBindMw, wrLocalInv;
    /** The struct ibv_mw_bind_info ibv_wr_bind_mw reads during the call: QP scratch. */
    private final MemorySegment bindInfo;

    /**
     * @param qpx          the view of the provider's ibv_qp_ex
     * @param grantedOps   the IBV_QP_EX_WITH_* flags the provider granted at creation
     * @param deviceAtomics whether the device has atomics at all (atomic_cap)
     * @param bindInfo      scratch of {@code sizeof(struct ibv_mw_bind_info)} bytes
     */
    ExtendedSendPath(MemorySegment qpx, long grantedOps, boolean deviceAtomics, String qpDescription,
                     int sendQueueDepth, MemorySegment inlineScratch, MemorySegment atomicValue,
                     MemorySegment bindInfo) {
        super(qpDescription, sendQueueDepth, inlineScratch);
        this.qpx = qpx;
        this.atomicValue = atomicValue;
        this.bindInfo = bindInfo;
        this.wrBindMw = (grantedOps & verbs_h.IBV_QP_EX_WITH_BIND_MW) != 0 ? fn(ibv_qp_ex.wr_bind_mw$OFFSET)
                : MemorySegment.NULL;
        this.wrLocalInv = (grantedOps & verbs_h.IBV_QP_EX_WITH_LOCAL_INV) != 0 ? fn(ibv_qp_ex.wr_local_inv$OFFSET)
                : MemorySegment.NULL;
        this.wrStart = fn(ibv_qp_ex.wr_start$OFFSET);
        this.wrComplete = fn(ibv_qp_ex.wr_complete$OFFSET);
        this.wrSend = fn(ibv_qp_ex.wr_send$OFFSET);
        this.wrSendImm = fn(ibv_qp_ex.wr_send_imm$OFFSET);
        this.wrRdmaWrite = fn(ibv_qp_ex.wr_rdma_write$OFFSET);
        this.wrRdmaWriteImm = fn(ibv_qp_ex.wr_rdma_write_imm$OFFSET);
        this.wrRdmaRead = fn(ibv_qp_ex.wr_rdma_read$OFFSET);
        this.wrCmpSwp = fn(ibv_qp_ex.wr_atomic_cmp_swp$OFFSET);
        this.wrFetchAdd = fn(ibv_qp_ex.wr_atomic_fetch_add$OFFSET);
        // members newer than the oldest supported rdma-core: read only where the installed release has them and the
        // provider granted the operation (it refuses IBV_QP_EX_WITH_* flags it does not know)
        this.wrAtomicWrite = sendOpSlot(qpx, grantedOps, verbs_h.IBV_QP_EX_WITH_ATOMIC_WRITE,
                RdmaCore.Feature.ATOMIC_WRITE, ibv_qp_ex.wr_atomic_write$OFFSET);
        this.wrFlush = sendOpSlot(qpx, grantedOps, verbs_h.IBV_QP_EX_WITH_FLUSH, RdmaCore.Feature.FLUSH,
                ibv_qp_ex.wr_flush$OFFSET);
        this.wrSetSge = fn(ibv_qp_ex.wr_set_sge$OFFSET);
        this.wrSetSgeList = fn(ibv_qp_ex.wr_set_sge_list$OFFSET);
        this.wrSetInlineData = fn(ibv_qp_ex.wr_set_inline_data$OFFSET);
        // a slot is usable only if its IBV_QP_EX_WITH_* flag was granted and the provider filled it
        this.atomics = deviceAtomics
                && (grantedOps & verbs_h.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP) != 0 && !isNull(wrCmpSwp)
                && (grantedOps & verbs_h.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD) != 0 && !isNull(wrFetchAdd);
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
    static MemorySegment sendOpSlot(MemorySegment qpx, long grantedOps, int opFlag, RdmaCore.Feature feature,
                                    long offset) {
        return (grantedOps & opFlag) != 0 && feature.isAvailable() && offset + ADDRESS.byteSize() <= qpx.byteSize()
                ? qpx.get(ADDRESS, offset) : MemorySegment.NULL;
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
    void post(Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, long compareAdd, long swap,
              long addr, int length, int lkey) throws RdmaException {
        begin(wrId, flags);
        try {
            build(op, remoteAddress, rkey, immediate, compareAdd, swap);
            VerbsOps.WR_SET_SGE.invokeExact(wrSetSge, qpx, lkey, addr, length);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        complete();
    }

    @Override
    void postList(Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, MemorySegment sges,
                  int count) throws RdmaException {
        begin(wrId, flags);
        try {
            build(op, remoteAddress, rkey, immediate, 0L, 0L);
            VerbsOps.WR_SET_SGE_LIST.invokeExact(wrSetSgeList, qpx, (long) count, sges);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        complete();
    }

    @Override
    void postInlineScratch(Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, long length)
            throws RdmaException {
        postInline(op, wrId, flags, remoteAddress, rkey, immediate, inlineScratch, length);
    }

    @Override
    void postInlineData(Op op, long wrId, int flags, long remoteAddress, int rkey, MemorySegment data)
            throws RdmaException {
        // data goes to the downcall as a MemorySegment: the FFM runtime keeps its arena from closing until the call
        // returns (a concurrent close throws there) and throws here if it is closed already. No copy needed.
        postInline(op, wrId, flags, remoteAddress, rkey, 0, data, data.byteSize());
    }

    private void postInline(Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate,
                            MemorySegment bytes, long length) throws RdmaException {
        begin(wrId, flags);
        try {
            build(op, remoteAddress, rkey, immediate, 0L, 0L);
            VerbsOps.WR_SET_INLINE_DATA.invokeExact(wrSetInlineData, qpx, bytes, length);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        complete();
    }

    /** RDMA FLUSH (draft-talpey-rdma-commit section 4.1); the caller checked {@link #flush()}. */
    void postFlush(long wrId, int flags, long remoteAddress, int rkey, long length, byte type, byte scope)
            throws RdmaException {
        begin(wrId, flags);
        try {
            VerbsOps.WR_FLUSH.invokeExact(wrFlush, qpx, rkey, remoteAddress, length, type, scope);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        complete();
    }

    /** RDMA ATOMIC WRITE (draft-talpey-rdma-commit section 4.2); the caller checked {@link #atomicWrite()}. */
    void postAtomicWrite(long wrId, int flags, long remoteAddress, int rkey, long value) throws RdmaException {
        atomicValue.set(JAVA_LONG, 0, value);
        begin(wrId, flags);
        try {
            VerbsOps.WR_ATOMIC_WRITE.invokeExact(wrAtomicWrite, qpx, rkey, remoteAddress, atomicValue);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        complete();
    }

    @Override
    void postBindWindow(long wrId, int flags, MemorySegment mw, int newRkey, MemorySegment mr, long addr,
                        long length, int access) throws RdmaException {
        bindInfo.set(ADDRESS, ibv_mw_bind_info.mr$OFFSET, mr);
        bindInfo.set(JAVA_LONG, ibv_mw_bind_info.addr$OFFSET, addr);
        bindInfo.set(JAVA_LONG, ibv_mw_bind_info.length$OFFSET, length);
        bindInfo.set(JAVA_INT, ibv_mw_bind_info.mw_access_flags$OFFSET, access);
        begin(wrId, flags);
        try {
            VerbsOps.WR_BIND_MW.invokeExact(wrBindMw, qpx, mw, newRkey, bindInfo);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        complete();
    }

    @Override
    void postLocalInvalidate(long wrId, int flags, int rkey) throws RdmaException {
        begin(wrId, flags);
        try {
            VerbsOps.WR_LOCAL_INV.invokeExact(wrLocalInv, qpx, rkey);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        complete();
    }

    /** ibv_wr_start and the request's id and flags. */
    private void begin(long wrId, int flags) {
        try {
            VerbsOps.WR_VOID.invokeExact(wrStart, qpx);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        qpx.set(JAVA_LONG, ibv_qp_ex.wr_id$OFFSET, wrId);
        qpx.set(JAVA_INT, ibv_qp_ex.wr_flags$OFFSET, flags);
    }

    private void build(Op op, long remoteAddress, int rkey, int immediate, long compareAdd, long swap)
            throws Throwable {
        switch (op) {
            case SEND -> VerbsOps.WR_VOID.invokeExact(wrSend, qpx);
            case SEND_WITH_IMM -> VerbsOps.WR_SEND_IMM.invokeExact(wrSendImm, qpx, Integer.reverseBytes(immediate));
            case WRITE -> VerbsOps.WR_RDMA.invokeExact(wrRdmaWrite, qpx, rkey, remoteAddress);
            case WRITE_WITH_IMM -> VerbsOps.WR_RDMA_WRITE_IMM.invokeExact(wrRdmaWriteImm, qpx, rkey, remoteAddress,
                    Integer.reverseBytes(immediate));
            case READ -> VerbsOps.WR_RDMA.invokeExact(wrRdmaRead, qpx, rkey, remoteAddress);
            case COMPARE_SWAP -> VerbsOps.WR_ATOMIC_CMP_SWP.invokeExact(wrCmpSwp, qpx, rkey, remoteAddress,
                    compareAdd, swap);
            case FETCH_ADD -> VerbsOps.WR_ATOMIC_FETCH_ADD.invokeExact(wrFetchAdd, qpx, rkey, remoteAddress,
                    compareAdd);
        }
    }

    /** ibv_wr_complete: posts what was built, or reports why not (ENOMEM/ENOSPC: the send queue is full). */
    private void complete() throws RdmaException {
        int rc;
        try {
            rc = (int) VerbsOps.WR_COMPLETE.invokeExact(wrComplete, qpx);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        if (rc != 0) {
            throw postFailure("ibv_wr_complete", rc);
        }
    }
}
