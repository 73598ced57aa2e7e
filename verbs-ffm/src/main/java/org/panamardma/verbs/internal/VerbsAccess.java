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
 * the device contexts and queue pairs that librdmacm creates. Not API: the module does not export this package (the
 * JDK's SharedSecrets pattern — the implementation registers itself when {@link Context} initialises).
 *
 * <p>On the class path nothing is exported or hidden, so the two static methods guard themselves as well: only
 * {@link Context}'s static initialiser may {@link #set} the implementation, once, and only the classes that use it
 * (today {@code org.panamardma.verbs.cm.CmId} and {@code EventChannel}) may {@link #get} it; any other caller gets an
 * {@link IllegalCallerException}. No code can replace the implementation, nor call its way to the native handles.
 * (Deep reflection, which the class path allows on every class, reaches private fields anyway; the module path
 * closes that too: this package and {@code ffi} are neither exported nor open.)
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
    QueuePair adoptQueuePair(
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
            Runnable destroy);

    /** rdma_cm took the QP to RTS: it may post now. */
    void markConnected(QueuePair qp);

    /**
     * Grants FLUSH at the QP (RTS to RTS, access flags) where the device has it: rdma_cm's own transitions set only
     * remote read/write/atomic access, and a responder checks FLUSH against the QP too.
     */
    void grantFlushAccess(QueuePair qp) throws RdmaException;

    /**
     * The implementation. Only for the classes of this module that need it: any other caller gets an
     * {@link IllegalCallerException}.
     */
    static VerbsAccess get() {
        return VerbsAccessHolder.get(StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                .getCallerClass());
    }

    /**
     * Installs the implementation: {@link Context}'s static initialiser does, once. Any other caller gets an
     * {@link IllegalCallerException}; a second installation an {@link IllegalStateException}.
     */
    static void set(VerbsAccess access) {
        VerbsAccessHolder.set(
                StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                        .getCallerClass(),
                access);
    }
}
