package org.panamardma.verbs;

import java.util.List;

/**
 * Describes a reliable-connected queue pair before it is created: {@code pd.queuePair().completionQueue(cq)
 * .sendQueueDepth(128).prepare()}.
 */
public final class QueuePairBuilder {
    final ProtectionDomain pd;
    CompletionQueue sendCq;
    CompletionQueue recvCq;
    SharedReceiveQueue srq;
    int maxSendWr = 64;
    int maxRecvWr = 64;
    int maxSendSge = 1;
    int maxRecvSge = 1;
    int maxInlineData = 0;
    boolean signalAll;
    int port = 1;
    int gidIndex = -1;
    boolean legacySendPath;
    boolean workRequestsForEveryOpcode;

    QueuePairBuilder(ProtectionDomain pd) {
        this.pd = pd;
    }

    /**
     * The same CQ for send and receive completions.
     *
     * @param cq a CQ of this PD's context
     * @return this builder
     */
    public QueuePairBuilder completionQueue(CompletionQueue cq) {
        this.sendCq = cq;
        this.recvCq = cq;
        return this;
    }

    /**
     * The CQ send requests complete on.
     *
     * @param cq a CQ of this PD's context
     * @return this builder
     */
    public QueuePairBuilder sendCompletionQueue(CompletionQueue cq) {
        this.sendCq = cq;
        return this;
    }

    /**
     * The CQ receives complete on.
     *
     * @param cq a CQ of this PD's context
     * @return this builder
     */
    public QueuePairBuilder receiveCompletionQueue(CompletionQueue cq) {
        this.recvCq = cq;
        return this;
    }

    /**
     * Receives come from this SRQ; the QP then has no receive queue of its own.
     *
     * @param srq an SRQ of this PD, or null for a receive queue of the QP's own
     * @return this builder
     */
    public QueuePairBuilder sharedReceiveQueue(SharedReceiveQueue srq) {
        this.srq = srq;
        return this;
    }

    /**
     * Outstanding send-queue work requests (posting more fails with ENOMEM).
     *
     * @param n at least 1, at most {@link DeviceAttributes#maxQpWr()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n} is below 1
     */
    public QueuePairBuilder sendQueueDepth(int n) {
        this.maxSendWr = positive("sendQueueDepth", n);
        return this;
    }

    /**
     * At most {@code n} receives posted at once.
     *
     * @param n at least 1, at most {@link DeviceAttributes#maxQpWr()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n} is below 1
     */
    public QueuePairBuilder receiveQueueDepth(int n) {
        this.maxRecvWr = positive("receiveQueueDepth", n);
        return this;
    }

    /**
     * At most {@code n} gather elements per send request.
     *
     * @param n at least 1, at most {@link DeviceAttributes#maxSge()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n} is below 1
     */
    public QueuePairBuilder maxSendSge(int n) {
        this.maxSendSge = positive("maxSendSge", n);
        return this;
    }

    /**
     * At most {@code n} scatter elements per receive.
     *
     * @param n at least 1, at most {@link DeviceAttributes#maxSge()}
     * @return this builder
     * @throws IllegalArgumentException if {@code n} is below 1
     */
    public QueuePairBuilder maxReceiveSge(int n) {
        this.maxRecvSge = positive("maxReceiveSge", n);
        return this;
    }

    /**
     * Largest payload of a {@link SendFlags#INLINE} request; the device may grant more.
     *
     * @param bytes 0 for none; more than the device can give fails {@link #prepare()} with EINVAL
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public QueuePairBuilder maxInlineData(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("maxInlineData must not be negative: " + bytes);
        }
        this.maxInlineData = bytes;
        return this;
    }

    /**
     * Every send-queue request completes (as if all were {@link SendFlags#SIGNALED}).
     *
     * @param signalAll whether to set {@code sq_sig_all}
     * @return this builder
     */
    public QueuePairBuilder signalAll(boolean signalAll) {
        this.signalAll = signalAll;
        return this;
    }

    /**
     * The device port to use (numbered from 1).
     *
     * @param port 1 to {@link DeviceAttributes#physicalPortCount()}
     * @return this builder
     */
    public QueuePairBuilder port(int port) {
        this.port = port;
        return this;
    }

    /**
     * The source GID index (RoCE: which IP address and RoCE version); default: the first RoCE v2 IPv4 GID.
     *
     * @param gidIndex an index of {@link Context#gidTable(int)}
     * @return this builder
     */
    public QueuePairBuilder gidIndex(int gidIndex) {
        this.gidIndex = gidIndex;
        return this;
    }

    /**
     * Uses {@code ibv_post_send} even where the device has the extended QP API: for comparing the two paths.
     * FLUSH and ATOMIC WRITE exist only in the extended API and are then refused.
     *
     * @param legacy whether to post with {@code ibv_post_send}
     * @return this builder
     */
    public QueuePairBuilder legacySendPath(boolean legacy) {
        this.legacySendPath = legacy;
        return this;
    }

    /**
     * On an extended QP, posts every opcode with the {@code ibv_wr_*} verbs (as before issue 26) instead of
     * {@code ibv_post_send}: for the tests of that path and the benchmark's comparison. Package-private: FLUSH and
     * ATOMIC WRITE need it, everything else is cheaper without.
     */
    QueuePairBuilder workRequestsForEveryOpcode(boolean every) {
        this.workRequestsForEveryOpcode = every;
        return this;
    }

    /**
     * Creates the QP and takes it to INIT: receives may be posted, and its endpoint handed to the peer.
     *
     * <p>Verbs: {@code ibv_create_qp}, {@code ibv_create_qp_ex}, {@code ibv_modify_qp}.
     *
     * @return the QP in INIT, with its endpoint
     * @throws RdmaException with the errno of {@code ibv_create_qp(_ex)} (EINVAL: a depth, SGE count or inline size
     *                       beyond the device's; ENOMEM) or of {@code ibv_modify_qp} to INIT
     * @throws IllegalStateException if no completion queue was given
     * @throws IllegalArgumentException if a CQ is of another device context than the PD
     */
    @Verb("ibv_create_qp")
    @Verb("ibv_create_qp_ex")
    @Verb("ibv_modify_qp")
    public PreparedQueuePair prepare() throws RdmaException {
        if (sendCq == null || recvCq == null) {
            throw new IllegalStateException("a queue pair needs completion queues: call completionQueue(cq)");
        }
        for (CompletionQueue cq : List.of(sendCq, recvCq)) {
            if (cq.context != pd.context) {
                throw new IllegalArgumentException(cq + " belongs to another device context than " + pd);
            }
        }
        pd.context.checkPort(port);
        synchronized (pd) {
            return PreparedQueuePair.create(this);
        }
    }

    private static int positive(String name, int n) {
        if (n < 1) {
            throw new IllegalArgumentException(name + " must be positive: " + n);
        }
        return n;
    }
}
