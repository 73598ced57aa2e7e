package org.panamardma.verbs.connection;

import java.util.function.Supplier;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.WorkCompletions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a connection's poller hands what it finds, on the poller thread: a receive's completion to the
 * {@link ReceivePool}, a request's to the {@link SendQueue}; after each drain the freed slots refilled (receives
 * first, then the sends that waited for a slot); the CM events where the poller polls them (a client's); and a
 * poller that died, as the connection's failure.
 */
final class CompletionRouting implements CompletionPoller.Handler {
    /** The connection's logger: a poller failure is the connection's news. */
    private static final Logger LOG = LoggerFactory.getLogger(RdmaConnection.class);

    private final String name;
    private final ConnectionFailure failure;
    private final SendQueue sends;
    private final ReceivePool receives;
    /** The connection's end, made after its poller (it stops the poller): read only once the poller runs. */
    private final Supplier<ConnectionEnd> end;

    CompletionRouting(
            String name,
            ConnectionFailure failure,
            SendQueue sends,
            ReceivePool receives,
            Supplier<ConnectionEnd> end) {
        this.name = name;
        this.failure = failure;
        this.sends = sends;
        this.receives = receives;
        this.end = end;
    }

    @Override
    public void completed(WorkCompletions wc, int i) {
        if (ReceivePool.isReceive(wc.wrId(i))) {
            receives.completed(wc, i);
        } else if (sends.completed(wc, i)) {
            receives.failWaiting();
        }
    }

    @Override
    public void drained() {
        receives.postReposts(); // receives first: a deferred send may be answered at once
        sends.postDeferred();
    }

    @Override
    public void pollCmEvents() throws RdmaException {
        end.get().pollCmEvents();
    }

    @Override
    public boolean settled() {
        return sends.settled();
    }

    @Override
    public void settledEnd() {
        end.get().finishPeerEnd();
    }

    @Override
    public void failed(Throwable t) {
        LOG.warn(name + ": poller failed", t);
        failure.mark(new ConnectionClosedException(name + ": completion poller failed: " + t, t));
        end.get().failAllPending();
    }
}
