package org.panamardma.verbs.connection.agent;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.panamardma.verbs.trusted.Callbacks;

/**
 * The requester half of the agent: numbers and posts Atomic Requests, matches their responses, and keeps the
 * ordering RFC 7306 promises to the application.
 *
 * <p><b>ORD.</b> At most {@code ord} requests are outstanding (the negotiated minimum of this end's depth and the
 * peer's IRD). A request holds its credit until both its response has arrived and its own SEND has completed, so
 * that the send-queue slots reserved for requests never overflow. Requests beyond wait here, in order, and their
 * futures complete later; nothing is sent to the peer beyond its IRD.
 *
 * <p><b>Order.</b> Requests are numbered in the order they are posted (under the connection's post order: the
 * responder checks the sequence) and answered in that order (section 5.2.2, semantics 8): a response that is not
 * for the oldest outstanding request is a protocol error. A request posted while a READ of this connection is in
 * flight carries the FENCE flag, so it starts only after that READ has completed: a READ followed by an atomic
 * reads the value before the atomic (section 7, "RDMA Read | Atomic"). The other way round, an RDMA READ posted while agent atomics are
 * outstanding is held back (in the same queue) until their responses have come: the peer's device serves READs
 * without the agent, and "RDMA Read Response Message will not be generated until Atomic Response Message has been
 * generated" (section 7, "Atomic | RDMA Read"). WRITEs and SENDs need neither (they may be placed before an earlier
 * atomic's response is generated, section 7); an atomic after a WRITE is delivered after it by the transport and
 * executed on delivery.
 *
 * <p>Thread-safe. One thread at a time posts what the queue releases ({@link #drain()}), outside the lock, so that a
 * post waiting for the connection never holds it; the connection's poller, which answers, never waits here.
 */
final class Requester {
    /** Posts a request: the connection layer's reserved path, with the request's slot. */
    interface Poster {
        /**
         * Posts {@code request} (Request Identifier assigned by {@code assign}, called under the connection's post
         * order right before the post) and returns the future of its SEND.
         */
        CompletableFuture<Void> post(AtomicRequest template, long postIndex, IdAssignment assign);
    }

    /** Called under the connection's post order: numbers the request and records it as outstanding. */
    interface IdAssignment {
        long assign();

        void posted();

        void notPosted();
    }

    private sealed interface Held permits HeldAtomic, HeldRead {}

    private record HeldAtomic(AtomicRequest template, CompletableFuture<Long> future) implements Held {}

    private record HeldRead(Supplier<CompletableFuture<Void>> read, CompletableFuture<Void> future) implements Held {}

    /** A request posted (or being posted) whose credit is not yet returned. */
    private static final class Outstanding {
        final CompletableFuture<Long> future;
        long id;
        boolean posted;
        boolean responded;
        boolean sendCompleted;

        Outstanding(CompletableFuture<Long> future) {
            this.future = future;
        }
    }

    private final Poster poster;
    private final int ord;
    private final Object lock = new Object();
    /** Guarded by lock. */
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /** Guarded by lock: posted requests without their response, oldest first. */
    private final ArrayDeque<Outstanding> awaitingResponse = new ArrayDeque<>();
    /** Guarded by lock: requests holding a credit. */
    private int inFlight;

    private int highWater;
    private long nextId;
    private long postIndex;
    private long sent;
    private long received;
    private boolean draining;
    private Throwable failure;
    /** READs this requester let go whose completion has not come yet (see {@link #fenceNeeded()}). */
    private final java.util.concurrent.atomic.AtomicInteger readsInFlight =
            new java.util.concurrent.atomic.AtomicInteger();

    Requester(Poster poster, int ord) {
        this.poster = poster;
        this.ord = ord;
    }

    CompletableFuture<Long> submit(AtomicRequest template) {
        CompletableFuture<Long> f = new CompletableFuture<>();
        if (enqueue(new HeldAtomic(template, f))) {
            drain();
        }
        return f;
    }

    /** {@code read} posted once every agent atomic posted before it has its response (see Order). */
    CompletableFuture<Void> orderedRead(Supplier<CompletableFuture<Void>> read) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (enqueue(new HeldRead(read, f))) {
            drain();
        }
        return f;
    }

    private boolean enqueue(Held h) {
        Throwable t;
        synchronized (lock) {
            t = failure;
            if (t == null) {
                held.addLast(h);
                return true;
            }
        }
        future(h).completeExceptionally(t);
        return false;
    }

    private static CompletableFuture<?> future(Held h) {
        return h instanceof HeldAtomic a ? a.future() : ((HeldRead) h).future();
    }

    /** Posts what may go, in order; one thread at a time (others return at once: the drainer sees their change). */
    private void drain() {
        synchronized (lock) {
            if (draining) {
                return;
            }
            draining = true;
        }
        boolean done = false;
        try {
            while (true) {
                Held h;
                Outstanding o = null;
                synchronized (lock) {
                    h = held.peekFirst();
                    if (h == null || failure != null || !ready(h)) {
                        draining = false;
                        done = true;
                        return;
                    }
                    held.pollFirst();
                    if (h instanceof HeldAtomic a) {
                        o = new Outstanding(a.future());
                        inFlight++;
                        highWater = Math.max(highWater, inFlight);
                    }
                }
                if (h instanceof HeldAtomic a) {
                    post(a, o);
                } else {
                    HeldRead r = (HeldRead) h;
                    start(r);
                }
            }
        } finally {
            if (!done) {
                synchronized (lock) {
                    draining = false;
                }
            }
        }
    }

    private boolean ready(Held h) {
        return h instanceof HeldAtomic ? inFlight < ord : awaitingResponse.isEmpty();
    }

    // the callback completes r's future (its dependents' failures stay theirs) and cannot throw itself: the future
    // whenComplete returns would only repeat the read's outcome, which r's future carries
    @SuppressWarnings("FutureReturnValueIgnored")
    private void start(HeldRead r) {
        CompletableFuture<Void> read;
        readsInFlight.incrementAndGet(); // before the post: a request posted after it must see it
        try {
            read = r.read().get();
        } catch (RuntimeException e) {
            readsInFlight.decrementAndGet();
            r.future().completeExceptionally(e);
            return;
        }
        read.whenComplete((v, t) -> {
            readsInFlight.decrementAndGet();
            if (t != null) {
                r.future().completeExceptionally(t);
            } else {
                r.future().complete(null);
            }
        });
    }

    private void post(HeldAtomic a, Outstanding o) {
        long index;
        synchronized (lock) {
            index = postIndex++;
        }
        CompletableFuture<Void> send = poster.post(a.template(), index, new IdAssignment() {
            @Override
            public long assign() {
                synchronized (lock) {
                    o.id = nextId;
                    awaitingResponse.addLast(o); // before the post: the response may be handled at once
                    return o.id;
                }
            }

            @Override
            public void posted() {
                synchronized (lock) {
                    o.posted = true;
                    nextId = (nextId + 1) & 0xffff_ffffL;
                    sent++;
                }
            }

            @Override
            public void notPosted() {
                synchronized (lock) {
                    awaitingResponse.remove(o);
                }
            }
        });
        // sendCompleted may post held requests (drain): a failure there is logged, not dropped with the future
        Callbacks.whenDone(send, "RFC 7306 agent requester", (v, t) -> sendCompleted(o, t));
    }

    private void sendCompleted(Outstanding o, Throwable t) {
        boolean credit;
        synchronized (lock) {
            o.sendCompleted = true;
            credit = o.responded || !o.posted;
            if (credit) {
                inFlight--;
            }
        }
        if (t != null) {
            o.future.completeExceptionally(t); // no-op if it was answered (it cannot have been: the send failed)
        }
        if (credit) {
            drain();
        }
    }

    /**
     * The peer answered {@code requestId} with {@code original}.
     *
     * @throws AgentProtocolException if it is not the oldest outstanding request's (section 5.2.2, semantics 7)
     */
    void onResponse(long requestId, long original) throws AgentProtocolException {
        Outstanding o;
        boolean credit;
        synchronized (lock) {
            o = awaitingResponse.peekFirst();
            if (o == null || o.id != requestId) {
                throw new AgentProtocolException(
                        TerminateError.MSN_RANGE,
                        requestId,
                        "an Atomic Response for request "
                                + requestId
                                + (o == null
                                        ? " with none outstanding"
                                        : " while " + o.id + " is the oldest outstanding"));
            }
            awaitingResponse.pollFirst();
            received++;
            o.responded = true;
            credit = o.sendCompleted;
            if (credit) {
                inFlight--;
            }
        }
        o.future.complete(original);
        drain(); // held READs may go now, whether or not a credit came back
    }

    /** Fails the outstanding request {@code requestId} (if it is one) with {@code t}: the peer's Terminate named it. */
    void failRequest(long requestId, Throwable t) {
        Outstanding hit = null;
        synchronized (lock) {
            for (Outstanding o : awaitingResponse) {
                if (o.id == requestId) {
                    hit = o;
                    break;
                }
            }
        }
        if (hit != null) {
            hit.future.completeExceptionally(t);
        }
    }

    /** Fails everything waiting or outstanding with {@code t}, and every later request. */
    void failAll(Throwable t) {
        List<CompletableFuture<?>> fail = new ArrayList<>();
        synchronized (lock) {
            if (failure == null) {
                failure = t;
            }
            for (Held h : held) {
                fail.add(future(h));
            }
            held.clear();
            for (Outstanding o : awaitingResponse) {
                fail.add(o.future);
            }
            awaitingResponse.clear();
        }
        for (CompletableFuture<?> f : fail) {
            f.completeExceptionally(t);
        }
    }

    long sent() {
        synchronized (lock) {
            return sent;
        }
    }

    long received() {
        synchronized (lock) {
            return received;
        }
    }

    int highWater() {
        synchronized (lock) {
            return highWater;
        }
    }

    int ord() {
        return ord;
    }

    /**
     * Whether a request posted now must carry the FENCE flag: only while a READ posted before it may still be in
     * flight (a fenced request waits for the READs and atomics before it to complete; with none in flight the flag
     * would only cost the device a check). Read under the connection's post order, where the READs are posted too.
     */
    boolean fenceNeeded() {
        return readsInFlight.get() > 0;
    }
}
