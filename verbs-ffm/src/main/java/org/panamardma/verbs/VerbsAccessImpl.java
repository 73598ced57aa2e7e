package org.panamardma.verbs;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.verbs_h;
import org.panamardma.verbs.internal.VerbsAccess;

/** The implementation of {@link VerbsAccess}: package-private access, handed to the cm package only. */
final class VerbsAccessImpl
        implements VerbsAccess<
                Context,
                ProtectionDomain,
                CompletionQueue,
                SharedReceiveQueue,
                QueuePair,
                DeviceAttributes,
                RdmaException> {
    @Override
    public void checkRdmacm() throws RdmaException {
        RdmaCore.checkRdmacm();
    }

    @Override
    public Context adoptContext(MemorySegment ibvContext) throws RdmaException {
        return Context.adopt(ibvContext);
    }

    @Override
    public MemorySegment contextHandle(Context context) {
        return context.handle;
    }

    @Override
    public MemorySegment pdHandle(ProtectionDomain pd) {
        return pd.handle;
    }

    @Override
    public MemorySegment cqHandle(CompletionQueue cq) {
        return cq.handle;
    }

    @Override
    public MemorySegment srqHandle(SharedReceiveQueue srq) {
        return srq.handle;
    }

    @Override
    public boolean hasExtendedQp(Context context) {
        return context.createQpExFn.address() != 0;
    }

    @Override
    public long wantedSendOps(DeviceAttributes attributes) {
        return PreparedQueuePair.wantedSendOps(attributes);
    }

    @Override
    public QueuePair adoptQueuePair(
            ProtectionDomain pd,
            CompletionQueue sendCq,
            CompletionQueue recvCq,
            SharedReceiveQueue srq,
            int port,
            MemorySegment qp,
            boolean extended,
            long sendOpsFlags,
            int maxSendWr,
            int maxRecvWr,
            int maxSendSge,
            int maxRecvSge,
            int maxInlineData,
            Runnable destroy) {
        return new QueuePair(
                pd,
                sendCq,
                recvCq,
                srq,
                port,
                new QueuePairCreation(
                        qp, extended, sendOpsFlags, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData),
                destroy);
    }

    @Override
    public void markConnected(QueuePair qp) {
        qp.markConnected();
    }

    @Override
    public void grantFlushAccess(QueuePair qp) throws RdmaException {
        DeviceAttributes a = qp.pd.context.attributes();
        if (!a.supportsFlushGlobal() && !a.supportsFlushPersistent()) {
            return;
        }
        int access = verbs_h.IBV_ACCESS_LOCAL_WRITE
                | verbs_h.IBV_ACCESS_REMOTE_READ
                | verbs_h.IBV_ACCESS_REMOTE_WRITE
                | (a.supportsAtomics() ? verbs_h.IBV_ACCESS_REMOTE_ATOMIC : 0)
                | (a.supportsFlushGlobal() ? verbs_h.IBV_ACCESS_FLUSH_GLOBAL : 0)
                | (a.supportsFlushPersistent() ? verbs_h.IBV_ACCESS_FLUSH_PERSISTENT : 0);
        synchronized (qp) {
            QueuePairAttributes.modify(
                    qp.qp,
                    qp.describe(),
                    verbs_h.IBV_QPS_RTS,
                    verbs_h.IBV_QP_ACCESS_FLAGS,
                    attr -> attr.set(
                            java.lang.foreign.ValueLayout.JAVA_INT,
                            org.panamardma.verbs.ffi.ibv_qp_attr.qp_access_flags$OFFSET,
                            access));
        }
    }
}
