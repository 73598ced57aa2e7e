package org.panamardma.verbs.internal;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.DeviceAttributes;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SharedReceiveQueue;

/**
 * What {@code org.panamardma.verbs.cm} needs of the verbs objects' insides: their native handles, and wrapping
 * the device contexts and queue pairs that librdmacm creates. Not API: this package is not exported (the JDK's
 * SharedSecrets pattern — the implementation registers itself when {@link Context} initialises).
 */
public interface VerbsAccess {
    /**
     * Refuses to start when librdmacm or libibverbs is missing (naming the package to install), cannot be loaded or
     * is older than the oldest rdma-core supported (RdmaCore).
     */
    void checkRdmacm() throws RdmaException;

    /** The Context of a device context opened by librdmacm (one Java object per native one; not closed by us). */
    Context adoptContext(MemorySegment ibvContext) throws RdmaException;

    MemorySegment handle(Context context);

    MemorySegment handle(ProtectionDomain pd);

    MemorySegment handle(CompletionQueue cq);

    MemorySegment handle(SharedReceiveQueue srq);

    /** Whether the context's provider has {@code create_qp_ex} (the extended QP API). */
    boolean hasExtendedQp(Context context);

    /** The IBV_QP_EX_WITH_* send operations to ask for: everything the device can do. */
    long wantedSendOps(DeviceAttributes attributes);

    /**
     * Wraps a queue pair created by rdma_cm; {@code destroy} destroys it (rdma_destroy_qp). The caps are what
     * the provider granted.
     */
    QueuePair adoptQueuePair(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
                             SharedReceiveQueue srq, int port, MemorySegment qp, boolean extended, long sendOpsFlags,
                             int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData,
                             Runnable destroy);

    /** rdma_cm took the QP to RTS: it may post now. */
    void markConnected(QueuePair qp);

    /**
     * Grants FLUSH at the QP (RTS to RTS, access flags) where the device has it: rdma_cm's own transitions set only
     * remote read/write/atomic access, and a responder checks FLUSH against the QP too.
     */
    void grantFlushAccess(QueuePair qp) throws RdmaException;

    static VerbsAccess get() {
        return Holder.get();
    }

    static void set(VerbsAccess access) {
        Holder.access = access;
    }

    final class Holder {
        private Holder() {}

        static volatile VerbsAccess access;

        static VerbsAccess get() {
            if (access == null) {
                try {
                    // Context's static initialiser registers the implementation
                    Class.forName(Context.class.getName(), true, Context.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new AssertionError(e);
                }
            }
            return access;
        }
    }
}
