package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.ibv_qp;

/**
 * A queue pair as a native resource: what it is (number, device, port, its queues and protection domain), what the
 * provider granted it at creation, its state, and its destruction. The verbs that post are its subclasses':
 * {@link TwoSidedQueuePair} (receives and SENDs) and {@link QueuePair} (the one-sided requests and chains).
 *
 * <p>Package-private, so users see one class: its public methods are {@link QueuePair}'s, and javadoc documents them
 * there. javac gives {@code QueuePair} a bridge for each (a call the JIT inlines), so a post costs no object and
 * no field read more than when they were all declared in one file.
 */
abstract sealed class QueuePairResource extends NativeResource permits TwoSidedQueuePair {
    final ProtectionDomain pd;
    final MemorySegment qp;
    private final int qpNumber;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final String deviceName;
    final int port;

    /** The gate every post and receive passes, the scratch both paths write into, and their safe destruction. */
    final QueuePairGuard guard;
    /** Send requests: capabilities, validation, the send backends. */
    final SendPosting sends;
    /** Receive requests: validation and ibv_post_recv. */
    final ReceivePath receives;

    QueuePairResource(
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
        this.guard = new QueuePairGuard(destroyHook);
        Context ctx = pd.context;
        ctx.track(qp, this);
        this.deviceName = ctx.deviceName();
        this.sends = new SendPosting(pd, guard.gate, qp, describe(), c, guard.scratch);
        this.receives = new ReceivePath(
                guard.gate, qp, describe(), srq != null, c.maxRecvWr(), c.maxRecvSge(), ctx, guard.scratch);
    }

    /** The size of the view of the provider's ibv_qp_ex (0 on the legacy path): for tests. */
    long extendedQpViewSize() {
        return sends.extendedQpViewSize();
    }

    void markConnected() {
        sends.markConnected();
    }

    /**
     * {@return the QP number the device gave it ({@code qp_num}, 24 bits): what the peer names as its destination QP}
     */
    public int qpNumber() {
        return qpNumber;
    }

    /** {@return the name of the device the QP is on ({@code mlx5_0}, {@code rxe0}...)} */
    public String deviceName() {
        return deviceName;
    }

    /** {@return the device port the QP uses (numbered from 1)} */
    public int port() {
        return port;
    }

    /** {@return the CQ its send requests complete on} */
    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    /** {@return the CQ its receives complete on} */
    public CompletionQueue receiveCompletionQueue() {
        return recvCq;
    }

    /** {@return the protection domain it was created in: the regions it posts must be registered there} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * Whether the QP was created with the extended API ({@code ibv_qp_ex}), which FLUSH and ATOMIC WRITE are posted
     * with ({@code ibv_wr_*}); other requests go through {@code ibv_post_send} either way.
     *
     * @return whether it can; fixed for the QP's life
     */
    public boolean usesExtendedSendPath() {
        return sends.extended();
    }

    /**
     * Whether {@link QueuePair#postCompareSwap} and {@link QueuePair#postFetchAdd} can post: on the extended path, as the provider
     * granted at creation; otherwise as the device's attributes say.
     *
     * @return whether it can; fixed for the QP's life
     */
    public boolean supportsAtomics() {
        return sends.atomics();
    }

    /** {@return whether SEND and WRITE with immediate data can post: not on iWARP, which has no immediate data} */
    public boolean supportsImmediateData() {
        return sends.immediateData();
    }

    /**
     * Whether {@link QueuePair#postFlush} can post: the installed rdma-core has it ({@link RdmaCore.Feature#FLUSH}, 45 and
     * later), the device has it, and the provider granted {@code IBV_QP_EX_WITH_FLUSH} at creation.
     *
     * @return whether it can; fixed for the QP's life
     */
    public boolean supportsFlush() {
        return sends.flush();
    }

    /**
     * {@return whether {@link QueuePair#postAtomicWrite} can post: library ({@link RdmaCore.Feature#ATOMIC_WRITE}), device, provider}
     */
    public boolean supportsAtomicWrite() {
        return sends.atomicWrite();
    }

    /**
     * Whether {@link QueuePair#postBindMemoryWindow} and {@link QueuePair#postInvalidate} can post: the device has type 2 windows
     * ({@link DeviceAttributes#supportsMemoryWindows()}) and, on the extended path, the provider granted
     * {@code IBV_QP_EX_WITH_BIND_MW} and {@code IBV_QP_EX_WITH_LOCAL_INV}.
     *
     * @return whether it can; fixed for the QP's life
     */
    public boolean supportsMemoryWindows() {
        return sends.memoryWindows();
    }

    /**
     * {@return the largest inline payload in bytes the provider granted ({@link QueuePair#postSendInline postSendInline}, {@link QueuePair#postWriteInline postWriteInline})}
     */
    public int maxInlineData() {
        return sends.maxInlineData();
    }

    /** {@return the send queue's depth the provider granted: at most this many send requests outstanding} */
    public int sendQueueDepth() {
        return sends.maxSendWr();
    }

    /** {@return the receive queue's depth the provider granted: at most this many receives posted} */
    public int receiveQueueDepth() {
        return receives.maxRecvWr();
    }

    /**
     * The QP's current state, as the device reports it (ERR after a failed request: see {@link QueuePair#reset()}).
     *
     * <p>Verb: {@code ibv_query_qp}.
     *
     * @return the state now (RESET, INIT, RTR, RTS, SQD, SQE or ERR)
     * @throws RdmaException with {@code ibv_query_qp}'s errno
     */
    @Verb("ibv_query_qp")
    public QpState state() throws RdmaException {
        synchronized (this) {
            checkOpen();
            return QueuePairAttributes.state(qp, describe());
        }
    }

    @Override
    protected void destroy() {
        guard.destroy(pd.context, qp, describe());
    }

    @Override
    protected String describe() {
        return "queue pair " + qpNumber + " on " + deviceName;
    }
}
