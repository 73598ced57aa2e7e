package org.panamardma.verbs.connection;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.panamardma.verbs.ChainPostException;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.DoorbellRefusedException;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendChain;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.WorkCompletionException;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.connection.RdmaConnection.ChainedWrite;
import org.panamardma.verbs.connection.agent.AgentLink;

/**
 * An {@link RdmaConnection}'s send queue as futures: each request gets a wr_id, a permit (the backpressure: at most
 * {@code sendQueueDepth} in flight), a result slot where it needs one, and a future that its completion completes.
 * A request made on the poller thread while no permit is free waits in the deferred queue, in order, and is posted
 * as soon as a completion frees one (the poller frees permits, so it must never wait for one). Which plain SENDs
 * go unsignaled is the {@link UnsignaledSends} policy's; this class numbers the requests in posting order so that
 * a signaled completion completes the unsignaled ones before it.
 */
final class SendQueue {

    /**
     * SEND: a plain SEND, the one request that may go unsignaled (ConnectionOptions.sendSignalInterval). FRAMED: a
     * request with an application slot of the agent's memory (its header). RESERVED: the agent's own, outside the
     * permits (its send-queue entries are reserved, ConnectionAgent).
     */
    enum Kind {
        VOID,
        SEND,
        ATOMIC,
        FRAMED,
        RESERVED
    }

    /** How a request goes to the queue pair, once it has its wr_id and slot. */
    @FunctionalInterface
    interface Post {
        /** @param flags SIGNALED, or 0 for a SEND left unsignaled (other requests post SIGNALED whatever) */
        void post(long wrId, int slot, int flags) throws RdmaException;
    }

    /** @param seq the request's place in posting order (see {@link #postOrder}) */
    private record Pending(CompletableFuture<Object> future, Kind kind, int slot, long seq) {}

    private record Deferred(CompletableFuture<Object> future, Kind kind, Post post) {}

    private final String name;
    private final QueuePair qp;
    /** The device's: which payloads must be signaled for their memory to be free at their completion. */
    private final Context context;

    private final MemoryRegion atomicResults;
    private final ConnectionFailure failure;
    private final BooleanSupplier onPollerThread;
    /** Ends the connection after a post that leaves the send queue unable to go on in order. */
    private final PostFailureEnd ending;

    private final Semaphore permits;
    /** Held while a request is numbered and posted, so that {@link Pending#seq} is the send queue's order. */
    private final Object postOrder = new Object();
    /** Guarded by postOrder. */
    private long postSeq;

    private final UnsignaledSends unsignaled;
    private final ConcurrentLinkedQueue<Integer> freeSlots = new ConcurrentLinkedQueue<>();
    /** Requests made on the poller thread while no slot was free, oldest first. */
    private final ConcurrentLinkedQueue<Deferred> deferred = new ConcurrentLinkedQueue<>();

    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextWrId = new AtomicLong();

    /**
     * The wr_id of a work request no future waits for (a signaled part of a request tracked under another wr_id):
     * its successful or flushed completion is ignored, an error one marks the connection failed. Requests' wr_ids
     * start at 1.
     */
    static final long UNTRACKED_WR_ID = 0;
    /** A reply's WRITEs and SEND posted together, and their wr_ids: under postOrder only. */
    private final SendChain sendChain;

    private final long[] chainIds;

    SendQueue(
            String name,
            ConnectionResources res,
            ConnectionFailure failure,
            BooleanSupplier onPollerThread,
            Runnable disconnect) {
        this.name = name;
        this.qp = res.qp;
        this.context = res.qp.protectionDomain().context();
        this.atomicResults = res.atomicResults;
        this.failure = failure;
        this.onPollerThread = onPollerThread;
        this.ending = new PostFailureEnd(name, failure, disconnect);
        int depth = res.options.sendQueueDepth();
        this.permits = new Semaphore(depth);
        this.unsignaled = new UnsignaledSends(res.options.sendSignalInterval());
        this.sendChain = new SendChain(Math.max(1, Math.min(depth, SendChain.MAX_REQUESTS)));
        this.chainIds = new long[sendChain.capacity()];
        for (int i = 0; i < depth; i++) {
            freeSlots.add(i);
        }
    }

    /** The lock that orders posts: held by whoever else posts on the queue pair (a framed SEND's scratch). */
    Object postOrder() {
        return postOrder;
    }

    /** Posts a request (waiting for a permit, or deferred on the poller thread); its future fails, never throws. */
    @SuppressWarnings("unchecked")
    <T> CompletableFuture<T> submit(Kind kind, Post post) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        ConnectionClosedException c = failure.get();
        if (c != null) {
            f.completeExceptionally(c);
            return (CompletableFuture<T>) (CompletableFuture<?>) f;
        }
        if (onPollerThread.getAsBoolean()) {
            // the poller frees the slots, so it must not wait for one: queue behind earlier deferred requests
            if (!deferred.isEmpty() || !permits.tryAcquire()) {
                deferred.add(new Deferred(f, kind, post));
                return (CompletableFuture<T>) (CompletableFuture<?>) f;
            }
            postAcquired(f, kind, post);
            return (CompletableFuture<T>) (CompletableFuture<?>) f;
        }
        try {
            // backpressure: wait for a free slot, but not past the connection's end
            while (!permits.tryAcquire(CompletionPoller.WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS)) {
                c = failure.get();
                if (c != null) {
                    f.completeExceptionally(c);
                    return (CompletableFuture<T>) (CompletableFuture<?>) f;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.completeExceptionally(e);
            return (CompletableFuture<T>) (CompletableFuture<?>) f;
        }
        postAcquired(f, kind, post);
        return (CompletableFuture<T>) (CompletableFuture<?>) f;
    }

    /** Posts a request that holds a permit: a slot for its result, a wr_id, the post (or its failure). */
    private void postAcquired(CompletableFuture<Object> f, Kind kind, Post post) {
        ConnectionClosedException c;
        Integer slot = kind == Kind.ATOMIC || kind == Kind.FRAMED ? freeSlots.poll() : Integer.valueOf(-1);
        if (slot == null) { // cannot happen: a permit guarantees a slot
            permits.release();
            f.completeExceptionally(new IllegalStateException(name + ": no atomic result slot"));
            return;
        }
        long wrId = nextWrId.incrementAndGet();
        // In posting order: the send queue completes its requests in that order (RC), so a signaled completion
        // tells that every request posted before it is done, unsignaled SENDs included.
        synchronized (postOrder) {
            boolean signaled = kind != Kind.SEND
                    || unsignaled.mustSignal(
                            permits.availablePermits() == 0 || !deferred.isEmpty() || permits.hasQueuedThreads());
            long seq = ++postSeq;
            pending.put(wrId, new Pending(f, kind, slot, seq));
            if (!signaled) {
                unsignaled.track(seq, wrId);
            }
            c = failure.get();
            if (c != null) {
                fail(wrId, c);
                return;
            }
            try {
                post.post(wrId, slot, signaled ? SendFlags.SIGNALED : 0);
                unsignaled.posted(signaled);
            } catch (DoorbellRefusedException e) {
                unsignaled.posted(signaled); // on the send queue: it stays pending until its flush says how it ended
                ending.afterRefusedDoorbell(e);
            } catch (Throwable t) {
                fail(wrId, t);
            }
        }
    }

    /** On the poller thread after each drain: posts the deferred requests that completions have made room for. */
    void postDeferred() {
        while (!deferred.isEmpty()) {
            ConnectionClosedException c = failure.get();
            if (c != null) {
                failDeferred(c);
                return;
            }
            if (!permits.tryAcquire()) {
                return;
            }
            // taken only now, with the permit held: a failing thread may empty the queue meanwhile
            Deferred d = deferred.poll();
            if (d == null) {
                permits.release();
                return;
            }
            postAcquired(d.future(), d.kind(), d.post());
        }
    }

    private void failDeferred(Throwable t) {
        Deferred d;
        while ((d = deferred.poll()) != null) {
            d.future().completeExceptionally(t);
        }
    }

    /**
     * Whether no request can still complete through the CQ, once the connection is marked failed (nothing new is
     * posted): nothing pending but unsignaled SENDs after the last signaled request. Those make no completion if
     * the device did them before the queue pair went to error (a flushed one makes its own), so whether they arrived
     * is unknowable here and they fail with the connection; so do the deferred ones, never posted.
     */
    boolean settled() {
        return pending.size() <= unsignaled.waiting();
    }

    /** Fails every deferred and pending request with {@code c}. */
    void failAll(ConnectionClosedException c) {
        failDeferred(c);
        for (Long wrId : pending.keySet()) {
            fail(wrId, c);
        }
    }

    /** Removes request {@code wrId} (if still pending), frees its slot and fails it. */
    private void fail(long wrId, Throwable t) {
        Pending p = pending.remove(wrId);
        if (p != null) {
            release(p);
            p.future.completeExceptionally(t);
        }
    }

    private void release(Pending p) {
        if (p.kind == Kind.RESERVED) {
            return; // the agent's: no permit, no slot
        }
        if (p.slot >= 0) {
            freeSlots.add(p.slot);
        }
        permits.release();
    }

    /** {@link AgentLink#postReserved}: posts at once, in the post order, outside the permits. */
    @SuppressWarnings("unchecked")
    CompletableFuture<Void> postReserved(AgentLink.ReservedPost post) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        synchronized (postOrder) {
            ConnectionClosedException c = failure.get();
            if (c != null) {
                f.completeExceptionally(c);
                return (CompletableFuture<Void>) (CompletableFuture<?>) f;
            }
            long wrId = nextWrId.incrementAndGet();
            pending.put(wrId, new Pending(f, Kind.RESERVED, -1, ++postSeq));
            try {
                post.post(wrId);
                unsignaled.posted(true);
            } catch (DoorbellRefusedException e) {
                unsignaled.posted(true);
                ending.afterRefusedDoorbell(e);
            } catch (Throwable t) {
                pending.remove(wrId);
                f.completeExceptionally(t);
            }
        }
        return (CompletableFuture<Void>) (CompletableFuture<?>) f;
    }

    /**
     * Send completion {@code i} of {@code wc}, on the poller thread.
     *
     * @return whether it put the queue pair in error (the connection is then marked failed)
     */
    boolean completed(WorkCompletions wc, int i) {
        long wrId = wc.wrId(i);
        boolean ok = wc.isSuccess(i);
        Pending p = pending.remove(wrId);
        if (p == null) {
            if (!ok && wc.status(i) != WcStatus.WR_FLUSH_ERR) {
                // a request failed already (close), or an unsignaled WRITE before an Immediate Data message whose
                // request completed: the queue pair is in error either way
                failure.mark(new ConnectionClosedException(name + ": queue pair in error after "
                        + new WorkCompletionException(wrId, wc.status(i), wc.vendorError(i), name).getMessage()));
            }
            return false;
        }
        long atomicResult =
                ok && p.kind == Kind.ATOMIC ? atomicResults.segment().get(JAVA_LONG, 8L * p.slot) : 0L;
        release(p);
        if (ok) {
            completeUnsignaledBefore(p.seq, null);
            p.future.complete(p.kind == Kind.ATOMIC ? (Object) atomicResult : null);
            return false;
        }
        WorkCompletionException e = new WorkCompletionException(wrId, wc.status(i), wc.vendorError(i), name);
        if (wc.status(i) == WcStatus.WR_FLUSH_ERR) {
            ConnectionClosedException c = failure.get();
            ConnectionClosedException flushed = new ConnectionClosedException(
                    (c != null ? c.getMessage() : name + ": queue pair in error") + " (request flushed)", e);
            completeUnsignaledBefore(p.seq, flushed);
            p.future.completeExceptionally(flushed);
            return false;
        }
        failure.mark(new ConnectionClosedException(name + ": queue pair in error after " + e.getMessage(), e));
        // an error completes the request that failed; those before it completed (an unsignaled one in error
        // would have made its own completion), those after it are flushed
        completeUnsignaledBefore(p.seq, null);
        p.future.completeExceptionally(e);
        return true;
    }

    /** The signaled request posted {@code seq}-th completed (successfully if {@code error} is null). */
    private void completeUnsignaledBefore(long seq, Throwable error) {
        unsignaled.completeBefore(seq, wrId -> {
            Pending q = pending.remove(wrId);
            if (q == null) {
                return; // failed already (its own error completion, or the connection's end)
            }
            release(q);
            if (error == null) {
                q.future.complete(null);
            } else {
                q.future.completeExceptionally(error);
            }
        });
    }

    // ------------------------------------------------------------------------------------------ chained posts

    /**
     * Posts {@code writes} and the SEND of {@code length} bytes of {@code mr} at {@code offset} as chains of one
     * {@link QueuePair#postChain} each, at most the chain's capacity per part, tracked by {@code outcome}. Not on
     * the poller thread (it waits for permits).
     *
     * @return false if every part was full, so the SEND is left for the caller to send alone
     */
    boolean postChain(ChainOutcome outcome, List<ChainedWrite> writes, MemoryRegion mr, long offset, int length) {
        int part = sendChain.capacity();
        int from = 0;
        while (from < writes.size()) {
            boolean last = writes.size() - from < part; // room for the SEND after the remaining WRITEs
            int to = Math.min(writes.size(), from + part);
            int requests = last ? to - from + 1 : to - from;
            ConnectionClosedException c = acquire(requests);
            if (c != null) {
                outcome.abandon(writes.size() + 1 - from, c);
                return true;
            }
            synchronized (postOrder) {
                postPart(outcome, writes, from, to, last, mr, offset, length);
            }
            if (last) {
                return true;
            }
            from = to;
        }
        return false;
    }

    /**
     * Posts WRITEs {@code from}..{@code to} of a chain, and its SEND if {@code last}, as one
     * {@link QueuePair#postChain}; holding {@link #postOrder} and their permits. Each request is pending under its own
     * wr_id before the post, as in {@link #postAcquired}: an error completion of an unsignaled WRITE names it.
     */
    private void postPart(
            ChainOutcome outcome,
            List<ChainedWrite> writes,
            int from,
            int to,
            boolean last,
            MemoryRegion mr,
            long offset,
            int length) {
        int n = to - from + (last ? 1 : 0);
        long[] ids = chainIds;
        SendChain chain = sendChain.clear();
        Throwable refused = failure.get();
        for (int k = 0; k < n; k++) {
            boolean send = last && k == n - 1;
            // a WRITE of a page or more is signaled where the device sends it from its memory after a later
            // completion (siw's zero copy: Context.mustSignalToReuse), so that its memory is free at the SEND's
            boolean signaled = send
                    || (!last && k == n - 1)
                    || context.mustSignalToReuse(writes.get(from + k).length());
            long wrId = nextWrId.incrementAndGet();
            long seq = ++postSeq;
            ids[k] = wrId;
            CompletableFuture<Object> f = new CompletableFuture<>();
            outcome.track(f);
            pending.put(wrId, new Pending(f, send ? Kind.SEND : Kind.VOID, -1, seq));
            if (!signaled) {
                unsignaled.track(seq, wrId);
            }
            if (refused != null) {
                continue;
            }
            try {
                if (send) {
                    chain.send(wrId, mr, offset, length, SendFlags.SIGNALED);
                } else {
                    ChainedWrite w = writes.get(from + k);
                    chain.write(
                            wrId,
                            w.mr(),
                            w.offset(),
                            w.length(),
                            w.remoteAddress(),
                            w.rkey(),
                            signaled ? SendFlags.SIGNALED : SendFlags.NONE);
                }
            } catch (RuntimeException e) {
                refused = e; // a range outside its region, a region closed: nothing of the part is posted
            }
        }
        if (refused == null) {
            try {
                qp.postChain(chain);
                unsignaled.posted(true); // the part ends with a signaled request
                return;
            } catch (DoorbellRefusedException e) {
                unsignaled.posted(true); // the whole part is on the send queue
                ending.afterRefusedDoorbell(e);
                return;
            } catch (ChainPostException e) {
                // the first ones are on the send queue, unsignaled: only the queue pair's flush completes them now
                int posted = e.postedRequests();
                for (int k = posted; k < n; k++) {
                    fail(ids[k], e);
                }
                if (posted > 0) {
                    ending.afterPartialPost(e);
                }
                return;
            } catch (Throwable t) {
                refused = t; // refused before anything was posted
            } finally {
                chain.clear();
            }
        }
        for (int k = 0; k < n; k++) {
            fail(ids[k], refused);
        }
    }

    /**
     * Waits for {@code n} permits at once (a chain's requests take theirs together, so that two chains cannot each
     * hold part of the send queue and wait for the rest), but not past the connection's end.
     *
     * @return null with the permits held, or why the connection cannot take requests
     */
    private ConnectionClosedException acquire(int n) {
        try {
            while (!permits.tryAcquire(n, CompletionPoller.WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS)) {
                ConnectionClosedException c = failure.get();
                if (c != null) {
                    return c;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ConnectionClosedException(name + ": interrupted waiting for the send queue");
        }
        ConnectionClosedException c = failure.get();
        if (c != null) {
            permits.release(n);
        }
        return c;
    }
}
