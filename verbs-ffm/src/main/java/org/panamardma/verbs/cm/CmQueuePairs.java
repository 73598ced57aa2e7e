package org.panamardma.verbs.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.panamardma.verbs.cm.CmVerbs.VERBS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.DeviceAttributes;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.ibv_qp_cap;
import org.panamardma.verbs.ffi.ibv_qp_init_attr_ex;
import org.panamardma.verbs.ffi.rdma_cm_id;
import org.panamardma.verbs.ffi.rdma_cma_h;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * How {@link CmId#createQueuePair} makes a queue pair through librdmacm: the options checked against the device,
 * then {@code rdma_create_qp_ex} asking for every send operation the device can do where it has the extended QP API
 * (rxe), else {@code rdma_create_qp} (siw: EOPNOTSUPP), and the result wrapped as a {@link QueuePair} that
 * {@code rdma_destroy_qp} destroys. The caller holds the id's monitor and has checked it open.
 */
final class CmQueuePairs {
    private CmQueuePairs() {}

    /** Refuses queue depths and SGE counts over the device's limits, before anything is created. */
    static void checkLimits(Context ctx, QueuePairOptions options) throws RdmaException {
        DeviceAttributes attrs = ctx.attributes();
        if (options.maxSendWr() > attrs.maxQpWr() || options.maxRecvWr() > attrs.maxQpWr()) {
            throw new IllegalArgumentException(
                    "queue depth over " + ctx.deviceName() + "'s max_qp_wr " + attrs.maxQpWr());
        }
        if (options.maxSendSge() > attrs.maxSge() || options.maxRecvSge() > attrs.maxSge()) {
            throw new IllegalArgumentException("SGE count over " + ctx.deviceName() + "'s max_sge " + attrs.maxSge());
        }
    }

    /**
     * Creates the reliable-connected QP of the id {@code handle} on {@code ctx} (port {@code port}) in {@code pd}.
     */
    static QueuePair create(MemorySegment handle, Context ctx, int port, ProtectionDomain pd, QueuePairOptions options)
            throws RdmaException {
        DeviceAttributes attrs = ctx.attributes();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cs = arena.allocate(Native.CALL_STATE);
            MemorySegment attr = arena.allocate(ibv_qp_init_attr_ex.layout());
            attr.set(ADDRESS, ibv_qp_init_attr_ex.send_cq$OFFSET, VERBS.cqHandle(options.sendCq()));
            attr.set(ADDRESS, ibv_qp_init_attr_ex.recv_cq$OFFSET, VERBS.cqHandle(options.recvCq()));
            attr.set(
                    ADDRESS,
                    ibv_qp_init_attr_ex.srq$OFFSET,
                    options.srq() == null ? MemorySegment.NULL : VERBS.srqHandle(options.srq()));
            long cap = ibv_qp_init_attr_ex.cap$OFFSET;
            boolean withSrq = options.srq() != null;
            attr.set(JAVA_INT, cap + ibv_qp_cap.max_send_wr$OFFSET, options.maxSendWr());
            attr.set(JAVA_INT, cap + ibv_qp_cap.max_recv_wr$OFFSET, withSrq ? 0 : options.maxRecvWr());
            attr.set(JAVA_INT, cap + ibv_qp_cap.max_send_sge$OFFSET, options.maxSendSge());
            attr.set(JAVA_INT, cap + ibv_qp_cap.max_recv_sge$OFFSET, withSrq ? 0 : options.maxRecvSge());
            attr.set(JAVA_INT, cap + ibv_qp_cap.max_inline_data$OFFSET, options.maxInlineData());
            attr.set(JAVA_INT, ibv_qp_init_attr_ex.qp_type$OFFSET, verbs_h.IBV_QPT_RC);
            attr.set(JAVA_INT, ibv_qp_init_attr_ex.sq_sig_all$OFFSET, options.signalAll() ? 1 : 0);
            attr.set(ADDRESS, ibv_qp_init_attr_ex.pd$OFFSET, VERBS.pdHandle(pd));

            boolean extended = false;
            long ops = 0;
            if (!options.legacySendPath() && VERBS.hasExtendedQp(ctx)) {
                ops = VERBS.wantedSendOps(attrs);
                attr.set(
                        JAVA_INT,
                        ibv_qp_init_attr_ex.comp_mask$OFFSET,
                        verbs_h.IBV_QP_INIT_ATTR_PD | verbs_h.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
                attr.set(JAVA_LONG, ibv_qp_init_attr_ex.send_ops_flags$OFFSET, ops);
                if (rdma_cma_h.rdma_create_qp_ex(cs, handle, attr) == 0) {
                    extended = true;
                } else {
                    int errno = Native.errno(cs);
                    if (errno != Errno.EOPNOTSUPP && errno != Errno.ENOSYS) {
                        throw new RdmaException("rdma_create_qp_ex(" + ctx.deviceName() + ")", errno);
                    }
                }
            }
            if (!extended) {
                // the ibv_qp_init_attr of rdma_create_qp is the prefix of the _ex one
                ops = 0;
                attr.set(JAVA_INT, ibv_qp_init_attr_ex.comp_mask$OFFSET, 0);
                attr.set(JAVA_LONG, ibv_qp_init_attr_ex.send_ops_flags$OFFSET, 0L);
                if (rdma_cma_h.rdma_create_qp(cs, handle, VERBS.pdHandle(pd), attr) != 0) {
                    throw new RdmaException("rdma_create_qp(" + ctx.deviceName() + ")", Native.errno(cs));
                }
            }
            MemorySegment qp = handle.get(ADDRESS, rdma_cm_id.qp$OFFSET);
            MemorySegment idHandle = handle;
            QueuePair created;
            try {
                created = VERBS.adoptQueuePair(
                        pd,
                        options.sendCq(),
                        options.recvCq(),
                        options.srq(),
                        port,
                        qp,
                        extended,
                        ops,
                        attr.get(JAVA_INT, cap + ibv_qp_cap.max_send_wr$OFFSET),
                        attr.get(JAVA_INT, cap + ibv_qp_cap.max_recv_wr$OFFSET),
                        attr.get(JAVA_INT, cap + ibv_qp_cap.max_send_sge$OFFSET),
                        attr.get(JAVA_INT, cap + ibv_qp_cap.max_recv_sge$OFFSET),
                        attr.get(JAVA_INT, cap + ibv_qp_cap.max_inline_data$OFFSET),
                        // never takes this id's monitor: close() holds it while closing the QP
                        () -> rdma_cma_h.rdma_destroy_qp(idHandle));
            } catch (RuntimeException | Error e) {
                rdma_cma_h.rdma_destroy_qp(handle);
                throw e;
            }
            return created;
        }
    }
}
