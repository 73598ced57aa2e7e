package org.panamardma.verbs.extensions;

import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.WorkCompletionException;
import org.panamardma.verbs.WorkCompletions;

/**
 * Waiting for one work request synchronously, for the blocking helpers of this package. They need a send CQ that
 * no one else polls while they wait: a completion of another request there is an error, not something to skip.
 */
final class Completions {
    private Completions() {}

    /**
     * Busy-polls {@code qp}'s send CQ until the completion of {@code wrId}; throws if it failed or another one came.
     * {@code wc} must hold exactly one entry: polling more would take completions of later requests off the CQ
     * and lose them. A timeout names the QP and its state: a request the device still holds leaves the QP in RTS,
     * one it gave up on moves it to ERR.
     */
    static void await(QueuePair qp, WorkCompletions wc, long wrId, long timeoutNanos) throws RdmaException {
        CompletionQueue cq = qp.sendCompletionQueue();
        if (wc.capacity() != 1) {
            throw new IllegalArgumentException("poll one completion at a time, not " + wc.capacity());
        }
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (cq.poll(wc) == 1) {
                if (wc.wrId(0) != wrId) {
                    throw new IllegalStateException("completion of request " + wc.wrId(0) + " on " + cq
                            + " while waiting for " + wrId + ": this helper needs a CQ of its own");
                }
                wc.check(0);
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new RdmaException("no completion of request " + wrId + " within " + timeoutNanos / 1_000_000
                        + " ms on " + qp + " (" + stateOf(qp) + ")");
            }
            Thread.onSpinWait();
        }
    }

    private static String stateOf(QueuePair qp) {
        try {
            return "state " + qp.state();
        } catch (RdmaException | RuntimeException e) {
            return "state unknown: " + e.getMessage();
        }
    }

    /** Like {@link #await} but reports a failed completion as its exception without throwing it. */
    static WorkCompletionException awaitOutcome(QueuePair qp, WorkCompletions wc, long wrId, long timeoutNanos)
            throws RdmaException {
        try {
            await(qp, wc, wrId, timeoutNanos);
            return null;
        } catch (WorkCompletionException e) {
            return e;
        }
    }
}
