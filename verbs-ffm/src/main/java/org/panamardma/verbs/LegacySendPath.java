package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_mw_bind_info;
import org.panamardma.verbs.ffi.ibv_send_wr;
import org.panamardma.verbs.ffi.ibv_sge;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * The send backend of a QP without the extended API (siw): one {@code struct ibv_send_wr} and its scatter/gather
 * array in the QP's scratch, filled and handed to the provider's {@code post_send} (the function pointer
 * {@code ibv_post_send} inlines to). See {@link SendPath} for the calling contract.
 */
final class LegacySendPath extends SendPath {
    private final MemorySegment postSendFn;
    private final MemorySegment qp;
    private final MemorySegment sendWr;
    private final MemorySegment sendSge;
    private final MemorySegment badWr;

    /** The scratch segments are the QP's (global-scope views, see QueuePair.unscoped). */
    LegacySendPath(MemorySegment postSendFn, MemorySegment qp, String qpDescription, int sendQueueDepth,
                   MemorySegment inlineScratch, MemorySegment sendWr, MemorySegment sendSge, MemorySegment badWr) {
        super(qpDescription, sendQueueDepth, inlineScratch);
        this.postSendFn = postSendFn;
        this.qp = qp;
        this.sendWr = sendWr;
        this.sendSge = sendSge;
        this.badWr = badWr;
        sendWr.set(ADDRESS, ibv_send_wr.sg_list$OFFSET, sendSge);
    }

    @Override
    void post(Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, long compareAdd, long swap,
              long addr, int length, int lkey) throws RdmaException {
        sge(addr, length, lkey);
        postSend(op, wrId, 1, remoteAddress, rkey, immediate, compareAdd, swap, flags);
    }

    @Override
    void postList(Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, MemorySegment sges,
                  int count) throws RdmaException {
        MemorySegment.copy(sges, 0, sendSge, 0, count * ScatterGatherList.SGE_SIZE);
        postSend(op, wrId, count, remoteAddress, rkey, immediate, 0L, 0L, flags);
    }

    @Override
    void postInlineScratch(Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, long length)
            throws RdmaException {
        sge(inlineScratch.address(), (int) length, 0);
        postSend(op, wrId, 1, remoteAddress, rkey, immediate, 0L, 0L, flags);
    }

    @Override
    void postInlineData(Op op, long wrId, int flags, long remoteAddress, int rkey, MemorySegment data)
            throws RdmaException {
        // ibv_post_send reads the bytes from an address inside the work request, where the FFM runtime cannot keep
        // data's arena alive: copy them into the QP's scratch first (MemorySegment.copy either has the bytes or
        // throws if data's arena is closed; a concurrent close cannot free it in mid-copy)
        MemorySegment.copy(data, 0, inlineScratch, 0, data.byteSize());
        postInlineScratch(op, wrId, flags, remoteAddress, rkey, 0, data.byteSize());
    }

    @Override
    void postBindWindow(long wrId, int flags, MemorySegment mw, int newRkey, MemorySegment mr, long addr,
                        long length, int access) throws RdmaException {
        long info = ibv_send_wr.$anon1$bind_mw$bind_info$OFFSET;
        sendWr.set(ADDRESS, ibv_send_wr.$anon1$bind_mw$mw$OFFSET, mw);
        sendWr.set(JAVA_INT, ibv_send_wr.$anon1$bind_mw$rkey$OFFSET, newRkey);
        sendWr.set(ADDRESS, info + ibv_mw_bind_info.mr$OFFSET, mr);
        sendWr.set(JAVA_LONG, info + ibv_mw_bind_info.addr$OFFSET, addr);
        sendWr.set(JAVA_LONG, info + ibv_mw_bind_info.length$OFFSET, length);
        sendWr.set(JAVA_INT, info + ibv_mw_bind_info.mw_access_flags$OFFSET, access);
        // a bind carries no immediate data: rxe's validate_send_wr refuses one with EINVAL, and the union still
        // holds whatever the previous request left there (an invalidated key, say)
        sendWr.set(JAVA_INT, ibv_send_wr.$anon0$imm_data$OFFSET, 0);
        postOpcodeOnly(wrId, verbs_h.IBV_WR_BIND_MW, flags);
    }

    @Override
    void postLocalInvalidate(long wrId, int flags, int rkey) throws RdmaException {
        // invalidate_rkey shares its union with imm_data, in host byte order
        sendWr.set(JAVA_INT, ibv_send_wr.$anon0$invalidate_rkey$OFFSET, rkey);
        postOpcodeOnly(wrId, verbs_h.IBV_WR_LOCAL_INV, flags);
    }

    /** A request without data: the fields of its opcode are set already. */
    private void postOpcodeOnly(long wrId, int opcode, int flags) throws RdmaException {
        sendWr.set(JAVA_LONG, ibv_send_wr.wr_id$OFFSET, wrId);
        sendWr.set(JAVA_LONG, ibv_send_wr.next$OFFSET, 0L);
        sendWr.set(JAVA_INT, ibv_send_wr.num_sge$OFFSET, 0);
        sendWr.set(JAVA_INT, ibv_send_wr.opcode$OFFSET, opcode);
        sendWr.set(JAVA_INT, ibv_send_wr.send_flags$OFFSET, flags);
        invoke();
    }

    private void sge(long addr, int length, int lkey) {
        sendSge.set(JAVA_LONG, ibv_sge.addr$OFFSET, addr);
        sendSge.set(JAVA_INT, ibv_sge.length$OFFSET, length);
        sendSge.set(JAVA_INT, ibv_sge.lkey$OFFSET, lkey);
    }

    private void postSend(Op op, long wrId, int numSge, long remoteAddress, int rkey, int immediate,
                          long compareAdd, long swap, int flags) throws RdmaException {
        sendWr.set(JAVA_LONG, ibv_send_wr.wr_id$OFFSET, wrId);
        sendWr.set(JAVA_LONG, ibv_send_wr.next$OFFSET, 0L);
        sendWr.set(JAVA_INT, ibv_send_wr.num_sge$OFFSET, numSge);
        sendWr.set(JAVA_INT, ibv_send_wr.opcode$OFFSET, op.wrOpcode);
        sendWr.set(JAVA_INT, ibv_send_wr.send_flags$OFFSET, flags);
        sendWr.set(JAVA_INT, ibv_send_wr.$anon0$imm_data$OFFSET, Integer.reverseBytes(immediate));
        if (op.atomic()) {
            sendWr.set(JAVA_LONG, ibv_send_wr.wr$atomic$remote_addr$OFFSET, remoteAddress);
            sendWr.set(JAVA_LONG, ibv_send_wr.wr$atomic$compare_add$OFFSET, compareAdd);
            sendWr.set(JAVA_LONG, ibv_send_wr.wr$atomic$swap$OFFSET, swap);
            sendWr.set(JAVA_INT, ibv_send_wr.wr$atomic$rkey$OFFSET, rkey);
        } else {
            sendWr.set(JAVA_LONG, ibv_send_wr.wr$rdma$remote_addr$OFFSET, remoteAddress);
            sendWr.set(JAVA_INT, ibv_send_wr.wr$rdma$rkey$OFFSET, rkey);
        }
        invoke();
    }

    private void invoke() throws RdmaException {
        int rc;
        try {
            rc = (int) VerbsOps.POST_WR.invokeExact(postSendFn, qp, sendWr, badWr);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        if (rc != 0) {
            throw postFailure("ibv_post_send", rc);
        }
    }
}
