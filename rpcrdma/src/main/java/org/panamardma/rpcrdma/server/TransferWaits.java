package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The waits for one connection's chunk transfers (a call's RDMA Reads; Writes outside a call), each with its
 * {@link TransferDeadline} kept here instead of in a timed park: the waiting thread parks untimed, and the server's
 * watch ({@link IdleWatch}) fails a wait whose deadline has passed ({@link #expireOverdue}).
 *
 * <p>Why not {@code get(timeout)}: a virtual thread's timed park arms a timer in its scheduler (JDK 25: the
 * {@code ForkJoinPool}'s delay scheduler; before, the virtual-thread unparker) and cancels it when the transfer
 * completes first, which wakes the pool's threads for a deadline that almost never fires: measured, the carriers'
 * pool was woken 4.6-4.8 times per NFS WRITE with the timed waits and 1.1-1.4 times without (issue 26,
 * benchmarks/results/untimed-waits-2026-11-29.txt; the same reason the reply's Send is watched, not waited for).
 * The price is precision: a stalled transfer fails up to one period of the watch after its deadline (a quarter of
 * the shortest timeout).
 */
final class TransferWaits {
    /** A wait in progress: {@code all} is completed exceptionally if it is still pending at {@code deadline}. */
    private record Waiting(CompletableFuture<Void> all, long deadline, long millis, String what) {}

    private final Set<Waiting> waiting = ConcurrentHashMap.newKeySet();

    /**
     * Waits for the transfers of one chunk, no longer than {@code timeoutMillis} (their {@link TransferDeadline}),
     * give or take the watch's period: a timeout is an {@link IOException} caused by a {@link TimeoutException}, for
     * which the connection is closed (which flushes what is still posted before the memory goes).
     */
    void await(List<CompletableFuture<Void>> posted, String what, long timeoutMillis) throws IOException {
        CompletableFuture<Void> all = CompletableFuture.allOf(posted.toArray(CompletableFuture[]::new));
        Waiting w = null;
        if (!all.isDone()) {
            w = new Waiting(all, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), timeoutMillis, what);
            waiting.add(w);
        }
        try {
            all.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof TimeoutException t) {
                throw new IOException(what + " did not complete in " + timeoutMillis + " ms", t);
            }
            throw new IOException(what + " failed: " + cause.getMessage(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " interrupted", e);
        } finally {
            if (w != null) {
                waiting.remove(w);
            }
        }
    }

    /**
     * Fails every wait whose deadline is at or before {@code now} ({@link System#nanoTime()}); the transfers
     * themselves stay posted until the connection closes (their memory is quarantined until then).
     *
     * @return how many it failed
     */
    int expireOverdue(long now) {
        int expired = 0;
        for (Waiting w : waiting) {
            if (now - w.deadline() >= 0
                    && w.all()
                            .completeExceptionally(
                                    new TimeoutException(w.what() + " did not complete in " + w.millis() + " ms"))) {
                expired++;
            }
        }
        return expired;
    }

    /** {@return the waits in progress} */
    int size() {
        return waiting.size();
    }
}
