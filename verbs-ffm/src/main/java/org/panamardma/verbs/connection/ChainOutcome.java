package org.panamardma.verbs.connection;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Settles a chain's future ({@link RdmaConnection#writesThenSend}) once every one of its requests is settled:
 * completed if all completed, else failed with the first failure. Why not at the first failure: a request of the
 * chain may still be on the send queue then (posted before a refused one, say), reading memory the caller gives
 * back on the failure.
 */
final class ChainOutcome {
    final CompletableFuture<Void> future = new CompletableFuture<>();
    private final AtomicInteger unsettled;
    private final AtomicReference<Throwable> first = new AtomicReference<>();

    ChainOutcome(int requests) {
        this.unsettled = new AtomicInteger(requests);
    }

    // settle cannot throw (counters, and completing a future whose dependents' failures stay theirs): the future
    // whenComplete returns would only repeat the request's own outcome, which settle records
    @SuppressWarnings("FutureReturnValueIgnored")
    void track(CompletableFuture<?> request) {
        request.whenComplete((v, t) -> settle(1, t));
    }

    /** {@code requests} of the chain will never be posted, because of {@code why}. */
    void abandon(int requests, Throwable why) {
        settle(requests, why);
    }

    private void settle(int requests, Throwable t) {
        if (t != null) {
            first.compareAndSet(null, t);
        }
        if (unsettled.addAndGet(-requests) == 0) {
            Throwable f = first.get();
            if (f == null) {
                future.complete(null);
            } else {
                future.completeExceptionally(f);
            }
        }
    }
}
