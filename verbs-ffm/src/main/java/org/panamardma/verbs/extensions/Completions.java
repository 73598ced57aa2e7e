package org.panamardma.verbs.extensions;

import org.panamardma.verbs.CompletionQueue;
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
     * Busy-polls {@code cq} until the completion of {@code wrId}; throws if it failed or another one came.
     * {@code wc} must hold exactly one entry: polling more would take completions of later requests off the CQ
     * and lose them.
     */
    static void await(CompletionQueue cq, WorkCompletions wc, long wrId, long timeoutNanos) throws RdmaException {
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
                throw new RdmaException("no completion of request " + wrId + " within "
                        + timeoutNanos / 1_000_000 + " ms");
            }
            Thread.onSpinWait();
        }
    }

    /** Like {@link #await} but reports a failed completion as its exception without throwing it. */
    static WorkCompletionException awaitOutcome(CompletionQueue cq, WorkCompletions wc, long wrId, long timeoutNanos)
            throws RdmaException {
        try {
            await(cq, wc, wrId, timeoutNanos);
            return null;
        } catch (WorkCompletionException e) {
            return e;
        }
    }
}
