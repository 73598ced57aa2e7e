package org.panamardma.benchmarks;

import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.ConnectOptions;
import org.panamardma.verbs.PreparedQueuePair;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.WorkCompletions;

/**
 * Two RC queue pairs connected by hand (endpoints exchanged in-process): {@code a} on one device, {@code b} on its
 * peer, each with its own CQ (send and receive completions on the same one), as the device tests' RcPair does.
 * {@code a} is the requester in every benchmark; {@code b} only responds and receives.
 */
final class RcConnection {
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final QueuePair a;
    final QueuePair b;

    private RcConnection(CompletionQueue cqA, CompletionQueue cqB, QueuePair a, QueuePair b) {
        this.cqA = cqA;
        this.cqB = cqB;
        this.a = a;
        this.b = b;
    }

    /**
     * Creates both QPs (closed with their contexts) and connects them.
     *
     * @param legacySendPath build {@code a} on the legacy {@code ibv_post_send} path instead of {@code ibv_wr_*}
     */
    static RcConnection open(ProtectionDomain pdA, ProtectionDomain pdB, int depth, boolean legacySendPath)
            throws RdmaException {
        CompletionQueue cqA = pdA.context().createCompletionQueue(2 * depth);
        CompletionQueue cqB = pdB.context().createCompletionQueue(2 * depth);
        PreparedQueuePair pa = pdA.queuePair()
                .completionQueue(cqA)
                .sendQueueDepth(depth)
                .receiveQueueDepth(depth)
                .legacySendPath(legacySendPath)
                .prepare();
        PreparedQueuePair pb = pdB.queuePair()
                .completionQueue(cqB)
                .sendQueueDepth(depth)
                .receiveQueueDepth(depth)
                .prepare();
        QueuePair a = pa.connect(pb.endpoint(), ConnectOptions.DEFAULTS);
        QueuePair b = pb.connect(pa.endpoint(), ConnectOptions.DEFAULTS);
        if (a.usesExtendedSendPath() == legacySendPath) {
            throw new IllegalStateException("asked for the " + (legacySendPath ? "legacy" : "extended")
                    + " send path, got the other on " + a.deviceName());
        }
        return new RcConnection(cqA, cqB, a, b);
    }

    /** How long to wait for a completion before calling it lost: 30 s, far above any latency here, even emulated. */
    private static final long TIMEOUT_NANOS = 30_000_000_000L;

    /**
     * Polls {@code cq} until one completion arrives, checks that it succeeded and returns its wrId. Allocates
     * nothing unless it fails. Every benchmark keeps exactly one request in flight per CQ, so more than one is a bug.
     */
    static long awaitOne(CompletionQueue cq, WorkCompletions wc) throws RdmaException {
        int n = cq.poll(wc);
        if (n == 0) {
            n = spin(cq, wc);
        }
        if (n != 1) {
            throw new IllegalStateException("expected one completion, got " + n);
        }
        wc.check(0);
        return wc.wrId(0);
    }

    private static int spin(CompletionQueue cq, WorkCompletions wc) throws RdmaException {
        long start = System.nanoTime();
        int n;
        while ((n = cq.poll(wc)) == 0) {
            if (System.nanoTime() - start > TIMEOUT_NANOS) {
                throw new IllegalStateException("no completion on " + cq + " within 30 s");
            }
            Thread.onSpinWait();
        }
        return n;
    }
}
