package org.panamardma.verbs.connection;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.connection.agent.ConnectionAgent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an {@link RdmaConnection} ends: by the peer (DISCONNECTED), the device (DEVICE_REMOVAL), the RFC 7306 agent's
 * Terminate or {@link RdmaConnection#close()}. Each records the {@link ConnectionFailure} first, so that no new
 * request is posted, then fails what is pending: the agent's requests, the send queue's, the waiting receives.
 */
final class ConnectionEnd {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionEnd.class);

    private final String name;
    private final CmId id;
    /** The client's own event channel (polled by the poller for this id's events), or null on a server. */
    private final EventChannel ownedEvents;
    /** On a server: the thread that delivers this id's CM events (close() must not wait for itself). */
    private final Thread eventThread;

    private final Duration timeout;
    private final ConnectionFailure failure;
    private final SendQueue sends;
    private final ReceivePool receives;
    private final ConnectionAgent agent;
    private final CompletionPoller poller;
    /**
     * How long the poller may go on draining after the peer's DISCONNECTED for the pending requests' completions (the
     * flush of a queue pair in error comes in microseconds; this bounds a provider that would not flush).
     */
    static final long SETTLE_GRACE_NANOS = 2_000_000_000L;

    private final CompletableFuture<CmEvent> disconnected = new CompletableFuture<>();
    /** The peer's DISCONNECTED or DEVICE_REMOVAL, once it came and while the poller settles; else null. */
    private volatile CmEvent peerEnd;

    private final AtomicBoolean closeCalled = new AtomicBoolean();

    ConnectionEnd(
            String name,
            CmId id,
            EventChannel ownedEvents,
            Thread eventThread,
            Duration timeout,
            ConnectionFailure failure,
            SendQueue sends,
            ReceivePool receives,
            ConnectionAgent agent,
            CompletionPoller poller) {
        this.name = name;
        this.id = id;
        this.ownedEvents = ownedEvents;
        this.eventThread = eventThread;
        this.timeout = timeout;
        this.failure = failure;
        this.sends = sends;
        this.receives = receives;
        this.agent = agent;
        this.poller = poller;
    }

    /** {@link RdmaConnection#disconnected()}: a copy, so that no caller can complete it. */
    CompletableFuture<CmEvent> disconnected() {
        return disconnected.copy();
    }

    /** Takes the CM events of a client's own channel, on the poller thread. */
    void pollCmEvents() throws RdmaException {
        CmEvent e;
        while (!id.isClosed() && (e = ownedEvents.await(id, Duration.ZERO)) != null) {
            handleCmEvent(e);
        }
    }

    /**
     * A CM event of this connection's id (from the poller on a client, from the server's event thread). The peer's
     * DISCONNECTED (or the device's removal) marks the connection failed at once, so nothing new is posted, and
     * disconnects, which moves the queue pair to the error state; the poller then drains the CQ before the pending
     * requests and waiting receives fail ({@link CompletionPoller#settleThen}): a request the peer saw done, a message
     * that arrived before it left, are reported so, as the kernel's ULPs drain a queue pair before they free it. The
     * CM event channel and the CQ are not ordered with each other: on siw and rxe the event has been seen first.
     */
    void handleCmEvent(CmEvent e) {
        if (e.type() != CmEventType.DISCONNECTED && e.type() != CmEventType.DEVICE_REMOVAL) {
            return;
        }
        boolean byPeer = !closeCalled.get();
        failure.mark(new ConnectionClosedException(name
                + (byPeer ? ": connection disconnected by the peer (" + e.type().cName() + ")" : ": connection closed")
                + (e.type() == CmEventType.DEVICE_REMOVAL ? ": device removed" : "")));
        if (!byPeer) { // close() is under way: it stops the poller and fails what is pending itself
            failAllPending();
            disconnected.complete(e);
            return;
        }
        disconnectQuietly(); // on RoCE the DREP the peer's own DISCONNECTED waits for; the queue pair flushes
        peerEnd = e;
        if (poller.isRunning()) {
            poller.settleThen(SETTLE_GRACE_NANOS);
        } else {
            finishPeerEnd(); // the poller failed or never ran: nothing drains the CQ
        }
    }

    /**
     * Ends what {@link #handleCmEvent} began once the poller has drained what completed (or its grace ran out):
     * fails the rest and completes {@link #disconnected()}. Idempotent; on the poller thread, or in close().
     */
    void finishPeerEnd() {
        CmEvent e = peerEnd;
        if (e != null) {
            failAllPending();
            disconnected.complete(e);
        }
    }

    /** Fails every pending request and waiting receive with the failure recorded. */
    void failAllPending() {
        ConnectionClosedException c = failure.get();
        if (agent != null) {
            agent.failAll(c);
        }
        sends.failAll(c);
        receives.failWaiting();
    }

    /** Disconnects, if the id still can: the queue pair goes to the error state and flushes what is posted. */
    void disconnectQuietly() {
        try {
            id.disconnect();
        } catch (RdmaException | RuntimeException ignored) {
            // already disconnected or closed: the queue pair is flushed either way
        }
    }

    /** Whether the peer's DISCONNECTED came, or close() was called (the agent's Terminate then need not end it). */
    boolean disconnectedOrClosing() {
        return disconnected.isDone() || closeCalled.get();
    }

    /** After a Terminate: fail what is pending and disconnect (the peer's DISCONNECTED follows). */
    void endStream() {
        failAllPending();
        try {
            id.disconnect();
        } catch (RdmaException | RuntimeException e) {
            LOG.debug(name + ": disconnect after a Terminate", e);
        }
    }

    /**
     * {@link RdmaConnection#close()}: disconnects and waits for DISCONNECTED, stops the poller, fails what is
     * pending, closes the id, then runs {@code free} (the connection's resources). Only the first call does:
     * it returns true, the others false.
     */
    boolean close(Runnable free) {
        if (!closeCalled.compareAndSet(false, true)) {
            return false;
        }
        failure.mark(new ConnectionClosedException(name + ": connection closed"));
        if (!disconnected.isDone()) {
            try {
                id.disconnect();
                awaitDisconnected();
            } catch (RdmaException | RuntimeException e) {
                LOG.debug(name + ": disconnect", e);
            }
        }
        poller.stop();
        failAllPending();
        finishPeerEnd(); // a settling the stopped poller left unfinished
        receives.discardArrived(); // their buffers are freed below
        try {
            id.close();
        } catch (RuntimeException e) {
            LOG.debug(name + ": closing the id", e);
        }
        free.run();
        if (ownedEvents != null) {
            ownedEvents.close();
        }
        return true;
    }

    /**
     * Waits for DISCONNECTED, delivered by the poller (client) or the server's event thread; never holds the event
     * channel's monitor for long (a waiter in it would starve the other users of the channel).
     */
    private void awaitDisconnected() throws RdmaException {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (Thread.currentThread() == eventThread) {
            return; // the server's event thread: it would wait for itself
        }
        while (!disconnected.isDone() && System.nanoTime() - deadline < 0) {
            if (poller.isPollerThread()) { // closed from a future's callback: nobody else polls the client's events
                if (peerEnd != null) {
                    finishPeerEnd(); // nor drains the CQ meanwhile: the callback holds the poller
                    return;
                }
                pollCmEvents();
            }
            try {
                disconnected.get(CompletionPoller.WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException ignored) {
                // again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
