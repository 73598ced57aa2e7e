package org.panamardma.verbs.internal;

import java.lang.foreign.MemorySegment;

/**
 * What {@code org.panamardma.verbs.cm} needs of the verbs objects' insides: their native handles, and wrapping
 * the device contexts and queue pairs that librdmacm creates. Not API: the module does not export this package (the
 * JDK's SharedSecrets pattern — the implementation registers itself when {@code Context} initialises).
 *
 * <p>The verbs types are type parameters, not names: this package sits below {@code org.panamardma.verbs} (its
 * implementation, {@code VerbsAccessImpl}, names this interface), so naming them here would close a package cycle
 * (VerbsPackageCycleTest). The one user, {@code cm.CmVerbs}, names the same types the implementation binds them to.
 *
 * <p>On the class path nothing is exported or hidden, so the two static methods guard themselves as well: only
 * {@code Context}'s static initialiser may {@link #set} the implementation, once, and only the class that uses it
 * ({@code org.panamardma.verbs.cm.CmVerbs}) may {@link #get} it; any other caller gets an
 * {@link IllegalCallerException}. No code can replace the implementation, nor call its way to the native handles.
 * (Deep reflection, which the class path allows on every class, reaches private fields anyway; the module path
 * closes that too: this package and {@code ffi} are neither exported nor open.)
 *
 * @param <CTX> {@code Context}
 * @param <PD> {@code ProtectionDomain}
 * @param <CQ> {@code CompletionQueue}
 * @param <SRQ> {@code SharedReceiveQueue}
 * @param <QP> {@code QueuePair}
 * @param <ATTRS> {@code DeviceAttributes}
 * @param <FAIL> {@code RdmaException}
 */
public interface VerbsAccess<CTX, PD, CQ, SRQ, QP, ATTRS, FAIL extends Exception> {
    /**
     * Refuses to start when librdmacm or libibverbs is missing (naming the package to install), cannot be loaded or
     * is older than the oldest rdma-core supported (RdmaCore).
     */
    void checkRdmacm() throws FAIL;

    /** The Context of a device context opened by librdmacm (one Java object per native one; not closed by us). */
    CTX adoptContext(MemorySegment ibvContext) throws FAIL;

    MemorySegment contextHandle(CTX context);

    MemorySegment pdHandle(PD pd);

    MemorySegment cqHandle(CQ cq);

    MemorySegment srqHandle(SRQ srq);

    /** Whether the context's provider has {@code create_qp_ex} (the extended QP API). */
    boolean hasExtendedQp(CTX context);

    /** The IBV_QP_EX_WITH_* send operations to ask for: everything the device can do. */
    long wantedSendOps(ATTRS attributes);

    /**
     * Wraps a queue pair created by rdma_cm; {@code destroy} destroys it (rdma_destroy_qp). The caps are what
     * the provider granted.
     */
    QP adoptQueuePair(
            PD pd,
            CQ sendCq,
            CQ recvCq,
            SRQ srq,
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
    void markConnected(QP qp);

    /**
     * Grants FLUSH at the QP (RTS to RTS, access flags) where the device has it: rdma_cm's own transitions set only
     * remote read/write/atomic access, and a responder checks FLUSH against the QP too.
     */
    void grantFlushAccess(QP qp) throws FAIL;

    /**
     * The implementation. Only for the classes of this module that need it: any other caller gets an
     * {@link IllegalCallerException}.
     */
    static VerbsAccess<?, ?, ?, ?, ?, ?, ?> get() {
        return VerbsAccessHolder.get(StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                .getCallerClass());
    }

    /**
     * Installs the implementation: {@code Context}'s static initialiser does, once. Any other caller gets an
     * {@link IllegalCallerException}; a second installation an {@link IllegalStateException}.
     */
    static void set(VerbsAccess<?, ?, ?, ?, ?, ?, ?> access) {
        VerbsAccessHolder.set(
                StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                        .getCallerClass(),
                access);
    }
}
