package org.panamardma.rpcrdma.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.panamardma.rpcrdma.CreditWindow;
import org.panamardma.verbs.connection.ConnectionClosedException;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.trusted.Callbacks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of an {@link RpcRdmaClient} from their start to their end: the credit window (RFC 8166 section 3.3),
 * calls pending by XID, their timeouts, and the one way a call ends ({@link #end}): its chunks revoked first, then its
 * reply decoded (or its error taken), its memory let go and its future completed. A lost connection ends every call
 * ({@link #failAll}); a revocation that does not complete in time ends the connection ({@link #abort}).
 */
final class Calls {
    private static final Logger LOG = LoggerFactory.getLogger(Calls.class);

    private final String name;
    private final RdmaConnection connection;
    private final ChunkMemory memory;
    private final CreditWindow<Call> window;
    private final ScheduledExecutorService timer;
    /** How long a timed-out call's windows may take to be invalidated before the connection is ended instead. */
    private final Duration revocationDeadline;

    private final Map<Integer, Call> pending = new ConcurrentHashMap<>();
    /**
     * Sent calls that timed out, by XID: each keeps its credit and its pool buffers until its late reply arrives
     * (or the connection ends).
     */
    private final Map<Integer, Call> timedOutHoldingCredit = new ConcurrentHashMap<>();
    /** Set when the client ends the connection itself (a revocation that did not complete): the calls' error. */
    private final AtomicBoolean aborting = new AtomicBoolean();

    private final AtomicBoolean closed = new AtomicBoolean();
    private CallSender sender;
    private volatile RpcRdmaException failure;

    Calls(
            String name,
            RdmaConnection connection,
            ChunkMemory memory,
            int maxRequests,
            ScheduledExecutorService timer,
            Duration revocationDeadline) {
        this.name = name;
        this.connection = connection;
        this.memory = memory;
        this.window = new CreditWindow<>(maxRequests);
        this.timer = timer;
        this.revocationDeadline = revocationDeadline;
    }

    /**
     * The client's timer thread (calls' timeouts, the registration cache's sweep). A call's timeout is cancelled
     * when its reply comes, and the cancelled task leaves the queue at once: otherwise every call of the last
     * {@code callTimeout} (2 minutes by default) stays queued, its task holding the call (plan, future, reply)
     * reachable, and the timer thread wakes once per call to drop it when it falls due, long after its call ended
     * (measured on the testbed, 2026-11-28: 0.3-1.1 ms of the emulated CPU per NFS call). The queue now holds only
     * the calls in progress.
     */
    static ScheduledThreadPoolExecutor timer(String name) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(
                1, r -> Thread.ofPlatform().daemon(true).name(name + "-timer").unstarted(r));
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /** Sets the send side (made after this, since it reports its failures here). */
    void sendWith(CallSender s) {
        this.sender = s;
    }

    CreditWindow<Call> window() {
        return window;
    }

    /** {@return the error calls fail with now, or null while the connection is up} */
    RpcRdmaException failure() {
        return failure;
    }

    /** {@return whether the client is closed (or closing)} */
    boolean closed() {
        return closed.get();
    }

    /** Marks the client closed; whether this call did. */
    boolean close() {
        return closed.compareAndSet(false, true);
    }

    /**
     * Starts a call whose chunks are exposed: pending, with its timeout, and sent when the window has a credit.
     */
    void start(Call call, Duration timeout) {
        pending.put(call.xid, call);
        call.timeout = timer.schedule(() -> timedOut(call, timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
        boolean now;
        try {
            now = window.offer(call);
        } catch (IllegalStateException closedWindow) {
            if (pending.remove(call.xid, call)) {
                end(call, null, failureOr("client closed"));
            }
            return;
        }
        if (now) {
            sender.send(call);
        }
        RpcRdmaException f = failure;
        if (f != null && pending.remove(call.xid, call)) { // raced a loss that drained the window before our offer
            end(call, null, f);
        }
    }

    RpcRdmaException failureOr(String what) {
        RpcRdmaException f = failure;
        return f != null ? f : new RpcRdmaException.ConnectionLost(name + ": " + what, null);
    }

    /** Ends a call that holds a credit without a reply, returning the credit. */
    void failAfterCredit(Call call, Throwable t) {
        if (pending.remove(call.xid, call)) {
            sendAll(window.release());
            end(call, null, t);
        }
    }

    void sendAll(List<Call> admitted) {
        for (Call c : admitted) {
            sender.send(c);
        }
    }

    /**
     * A reply with {@code credits} arrived for {@code xid}: the pending call it answers, which now returns its credit,
     * or null (a late reply to a call that timed out, whose kept credit it returns, or a reply to nothing).
     */
    Call replied(int xid, int credits) {
        Call call = pending.remove(xid);
        if (call == null) {
            Call late = timedOutHoldingCredit.remove(xid);
            sendAll(late != null ? window.replyReceived(credits) : window.grantUpdated(credits));
            return null;
        }
        sendAll(window.replyReceived(credits));
        return call;
    }

    /** A reply we cannot parse named {@code xid}: its call fails with {@code error}. */
    void badReply(int xid, RpcRdmaException error) {
        Call call = pending.remove(xid);
        if (call != null) {
            sendAll(window.release());
            end(call, null, error);
        }
    }

    private void timedOut(Call call, Duration timeout) {
        if (!pending.remove(call.xid, call)) {
            return;
        }
        call.ended = true;
        if (!window.cancelQueued(call)) {
            if (call.sent) {
                // The server still holds the call, so it still counts against the grant (RFC 8166 section
                // 3.3.1): the credit comes back with the late reply (replied), not now. A server that never
                // answers thus shrinks the window; calls then wait for a credit and time out saying so. The
                // server may also still try to access the call's chunks: end() revokes them first.
                timedOutHoldingCredit.put(call.xid, call);
            } else {
                sendAll(window.release()); // admitted but not yet sent: send() will skip it
            }
        }
        RpcRdmaException.Timeout error = new RpcRdmaException.Timeout(name + ": no reply to call " + call.hexXid()
                + " within " + timeout + (call.sent ? "" : " (still waiting for a credit)"));
        // not on the timer thread: posting the invalidations may wait for room in the send queue, and the timer must
        // stay free to run the deadline below
        Thread.ofVirtual().name(name + "-timeout-" + call.hexXid()).start(() -> end(call, null, error));
        // A window's invalidation waits behind the send queue, which a server can stall (it never posts receives,
        // and our Sends retry RNR for ever): past a deadline, ending the connection revokes every window instead.
        var _ = timer.schedule( // its failure is logged (Callbacks.logging), nothing else waits for it
                Callbacks.logging(name, () -> {
                    if (!call.future.isDone()) {
                        abort("the memory windows of timed-out call " + call.hexXid() + " were not invalidated within "
                                + revocationDeadline);
                    }
                }),
                revocationDeadline.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    /**
     * Ends the connection from the client's side (a revocation that did not complete in time): every window is
     * deallocated, and pending calls fail with {@link RpcRdmaException.ConnectionLost} naming {@code why}.
     */
    private void abort(String why) {
        if (!aborting.compareAndSet(false, true)) {
            return;
        }
        LOG.warn("{}: {}; ending the connection", name, why);
        RpcRdmaException.ConnectionLost e = new RpcRdmaException.ConnectionLost(name + ": " + why, null);
        if (failure == null) {
            failure = e;
        }
        memory.revokeAllWindows();
        Thread.ofVirtual().name(name + "-abort").start(() -> {
            connection.close(); // the receive loop then fails every call (failAll)
            failAll(e);
        });
    }

    /** Decodes a reply once its call's chunks are revoked. */
    @FunctionalInterface
    interface Decoder {
        RpcRdmaReply decode() throws RpcRdmaException;
    }

    /**
     * Ends a call the caller removed from the pending calls (or that never got there): revokes its chunks, then
     * decodes its reply ({@code decoder}, or fails with {@code error}), lets its memory go and completes its future.
     * The revocation completes at once (registrations per call, windows already gone), or when the windows'
     * invalidation completes, on the connection's poller thread.
     */
    void end(Call call, Decoder decoder, Throwable error) {
        call.ended = true;
        ScheduledFuture<?> t = call.timeout;
        if (t != null) {
            t.cancel(false);
        }
        Callbacks.whenDone(call.chunks.revoke(), name, (v, x) -> {
            RpcRdmaReply reply = null;
            Throwable failed = error;
            if (failed == null) {
                try {
                    reply = decoder.decode();
                } catch (RpcRdmaException | RuntimeException e) {
                    failed = e;
                }
            }
            try {
                call.chunks.release();
            } catch (RuntimeException e) {
                LOG.warn(name + ": releasing the chunk memory of call " + call.hexXid(), e);
            }
            if (failed != null) {
                call.future.completeExceptionally(failed);
            } else {
                call.future.complete(reply);
            }
        });
    }

    /** The connection is gone (or the client closes): every pending and queued call fails with {@code e}. */
    void failAll(RpcRdmaException e) {
        if (failure == null) {
            failure = e;
        }
        // every window goes first, whatever state the queue pair is in: the calls' revocations complete at once
        memory.revokeAllWindows();
        timedOutHoldingCredit.clear();
        for (Call queued : window.close()) {
            if (pending.remove(queued.xid, queued)) {
                end(queued, null, e);
            }
        }
        for (Call call : List.copyOf(pending.values())) {
            if (pending.remove(call.xid, call)) {
                end(call, null, e);
            }
        }
        if (!closed.get()) {
            // the client cannot be used again: let the caller's memory go now rather than at close
            memory.cache.clear();
        }
    }

    /** {@return a {@link RpcRdmaException.ConnectionLost} of the client {@code name}: {@code what} and its cause} */
    static RpcRdmaException.ConnectionLost lost(String name, String what, Throwable cause) {
        String detail = cause instanceof ConnectionClosedException c
                ? ": " + c.getMessage()
                : cause != null ? ": " + cause : "";
        return new RpcRdmaException.ConnectionLost(name + ": " + what + detail, cause);
    }
}
