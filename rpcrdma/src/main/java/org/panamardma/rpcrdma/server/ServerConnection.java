package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.oncrpc.limits.RateLimitedLog;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.memory.BufferPool;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.ConnectionClosedException;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.Received;
import org.panamardma.verbs.trusted.Callbacks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * One accepted RPC-over-RDMA connection: each received message (the connection layer posts its receive buffer again
 * at once) starts a virtual thread of its own, from the receive's completion on the poller's thread, which runs
 * {@link RpcRdmaCallHandler} and Sends the answer from a pre-registered send buffer.
 *
 * <p>Calls in progress are bounded by the credits granted (RFC 8166 section 3.3.1: a requester has at most that many
 * calls outstanding): a message is taken only when a call slot is free. Messages a client sends beyond its credits
 * wait in their receive buffers, which are not posted again until taken; the connection keeps twice the credits
 * (and four more) posted, so that a client overrunning its grant up to twofold is still served in turn (on iWARP,
 * which has no receiver-not-ready retry, a Send finding no receive ends the connection; on InfiniBand and RoCE
 * the client's Sends are held back by RNR retries). Beyond that nothing grows: not threads, not memory.
 *
 * <p>When the peer goes (or the connection fails) the reader stops, calls in flight finish or fail on the dead
 * queue pair, the send buffers are deregistered and the connection is closed: nothing of it stays.
 */
final class ServerConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);

    private final RdmaConnection connection;
    private final RpcRdmaCallHandler handler;
    /** The connection's RDMA Reads and its registered memory for chunks (closed after the queue pair). */
    private final VerbsChunkTransfers transfers;

    private final MemoryRegion sendBuffers;
    private final SendSlots sendSlots;
    private final int sendBufferSize;
    private final Phaser calls = new Phaser(1);
    /** The credits granted; a message is taken only with a free slot. */
    private final CallSlots callSlots;

    private final AtomicInteger inProgress = new AtomicInteger();
    /** Messages taken and messages answered (or dropped): the client's calls outstanding are the difference. */
    private final AtomicLong taken = new AtomicLong();

    private final AtomicLong answered = new AtomicLong();
    private final ServerStatistics statistics;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** A receive failed (the connection failed or closed): no message is asked for any more. */
    private final AtomicBoolean receivingEnded = new AtomicBoolean();
    /** A late reply was reported and the close started (the watch may look again before the close has begun). */
    private final AtomicBoolean lateReplyReported = new AtomicBoolean();

    private final Runnable onClosed;
    private final long timeoutMillis;
    private final TransferDeadline transferDeadline;
    /** When a call was last taken or ended: what the idle timeout counts from. */
    private volatile long lastActivity = System.nanoTime();

    ServerConnection(
            RdmaConnection connection,
            RpcService service,
            RpcRdmaHeaderDecoder decoder,
            ConnectionSettings settings,
            ServerStatistics statistics,
            long timeoutMillis,
            TransferDeadline transferDeadline,
            ConnectionMemory memory,
            RateLimitedLog refusalLog,
            long idleRegisteredBytes,
            Runnable onClosed)
            throws RdmaException {
        this.connection = connection;
        this.callSlots = new CallSlots(settings.maxCredits());
        this.statistics = statistics;
        this.timeoutMillis = timeoutMillis;
        this.transferDeadline = transferDeadline;
        this.onClosed = onClosed;
        this.sendBufferSize = settings.sendInline();
        // One send buffer per call slot (one per credit): a call in progress always finds one.
        int count = settings.maxCredits();
        this.sendBuffers =
                connection.protectionDomain().allocate((long) count * sendBufferSize, Set.of(Access.LOCAL_WRITE));
        this.sendSlots = new SendSlots(count);
        this.transfers = new VerbsChunkTransfers(
                connection,
                transferDeadline,
                Math.max(settings.maxCallSize(), settings.maxReplySize()),
                idleRegisteredBytes);
        this.handler = new RpcRdmaCallHandler(
                service,
                decoder,
                settings,
                transfers,
                statistics,
                ConfigRdmaProgram.INSTANCE,
                memory,
                connection.name(),
                connection.localAddress(),
                connection.peerAddress(),
                refusalLog);
    }

    /**
     * Receives kept posted per connection: twice the credits granted, and four more. A client may overrun its
     * credits; the kernel's server keeps more receives posted than it grants so that such a client is not cut off
     * on iWARP, where a Send finding no receive ends the connection.
     */
    static int receiveDepth(int credits) {
        return 2 * credits + 4;
    }

    ConnectionSettings settings() {
        return handler.settings();
    }

    RdmaConnection rdma() {
        return connection;
    }

    /** {@return the connection's pool of chunk buffers} */
    BufferPool chunkPool() {
        return transfers.pool();
    }

    /**
     * Takes one receive per credit: each call slot waits for its message as a callback on the receive's future, which
     * the connection's poller completes; the callback starts the call's virtual thread from there. So a message
     * reaches its call with one thread wake-up (the call's), where a receive loop blocked on each receive took two
     * (the loop's, then the call's): what knfs-timeline.sh saw at every call's arrival. A slot's next receive is
     * taken when its call ends.
     */
    void start() {
        for (int i = settings().maxCredits(); i > 0 && takeNextMessage(); i--) {
            // each iteration took a slot and asked for a message for it
        }
    }

    /**
     * Asks for the next message with a free call slot; never blocks (callers: start, and the end of a call on the
     * poller's thread or the call's).
     *
     * @return false if no slot was free, or no message is taken any more (closed, or receiving failed)
     */
    private boolean takeNextMessage() {
        if (receivingEnded.get() || closed.get() || !callSlots.tryTake()) {
            return false;
        }
        Callbacks.whenDone(connection.receive(), connection.name(), this::messageArrived);
        return true;
    }

    /** A slot's message arrived (on the poller's thread, or the asker's if it was there already): its call starts. */
    private void messageArrived(Received message, Throwable failed) {
        if (failed != null) {
            callSlots.giveBack();
            // the connection failed or closed: every slot's receive fails so, once; the first ends receiving
            if (receivingEnded.compareAndSet(false, true)) {
                Throwable cause = failed instanceof CompletionException c ? c.getCause() : failed;
                if (!(cause instanceof ConnectionClosedException)) {
                    LOG.warn(connection.name() + ": receive failed", cause);
                }
                Thread.ofVirtual().start(this::close); // it tells how the connection ended
            }
            return;
        }
        if (closed.get()) {
            callSlots.giveBack(); // taken as the connection closed: no call starts on a closing connection
            return;
        }
        taken.incrementAndGet();
        lastActivity = System.nanoTime();
        calls.register();
        try {
            Thread.ofVirtual().name("rpcrdma-call " + connection.name()).start(() -> serve(message));
        } catch (RuntimeException e) {
            calls.arriveAndDeregister();
            callSlots.giveBack();
            LOG.error(connection.name() + ": starting a call's thread", e);
            Thread.ofVirtual().start(this::close);
        }
    }

    private void serve(Received message) {
        int buffer = -1;
        // once the reply is posted its Send's completion ends the call (replySent), not this thread
        boolean replyPosted = false;
        statistics.callsInProgress(inProgress.incrementAndGet());
        try {
            buffer = sendSlots.take();
            long offset = (long) buffer * sendBufferSize;
            MemorySegment out = sendBuffers.segment().asSlice(offset, sendBufferSize);
            RpcRdmaCallHandler.Outcome outcome = handler.handle(MemorySegment.ofArray(message.data()), out);
            StagedWrites writes = outcome.writes();
            if (outcome.sendLength() > 0) {
                // svc_rdma_sendto: the reply's Writes chained before its Send, unsignaled; the memory they read
                // goes back on the Send's completion (or its failure, or the connection's end), not here
                CompletableFuture<Void> sent = writes.isEmpty()
                        ? connection.send(sendBuffers, offset, outcome.sendLength())
                        : connection.writesThenSend(writes.writes(), sendBuffers, offset, outcome.sendLength());
                // the Send's failure is handled in replySent; this callback only gives the Writes' memory back
                Callbacks.whenDone(sent, connection.name(), (ok, failed) -> writes.release());
                // No thread waits for the Send (svcrdma's sendto does not either: one wake-up fewer per call). The
                // call slot is freed when the buffer is back, and a Send late for its deadline (the Writes' bytes get
                // their transfer deadline on top of it) is found by the server's watch, which closes the connection.
                long wait =
                        writes.isEmpty() ? timeoutMillis : timeoutMillis + transferDeadline.millisFor(writes.bytes());
                SendSlots.Pending posted = new SendSlots.Pending(
                        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait), wait, !writes.isEmpty());
                CompletableFuture<Void> sentAndBufferBack = sendSlots.giveBackWhenDone(buffer, sent, posted);
                buffer = -1;
                Callbacks.whenDone(sentAndBufferBack, connection.name(), (ok, failed) -> replySent(failed));
                replyPosted = true;
            } else {
                writes.release();
                answered.incrementAndGet();
            }
        } catch (IOException e) {
            if (e.getCause() instanceof TimeoutException && !closed.get()) {
                // a chunk's RDMA Reads or Writes did not complete within their deadline: the peer does not answer
                statistics.transferTimeout();
                LOG.warn(connection.name() + ": closing: " + e.getMessage());
            } else if (!closed.get() && !connection.isFailed()) {
                LOG.warn(connection.name() + ": a call failed, closing", e);
            }
            Thread.ofVirtual().start(this::close);
        } catch (RuntimeException e) {
            // After close() the connection's protection domain is gone (with the call's registrations): a call
            // still running then fails on it (IllegalStateException), which is expected, not an error.
            LOG.atLevel(closed.get() ? Level.DEBUG : Level.ERROR)
                    .setCause(e)
                    .log(connection.name() + ": handling a message");
            Thread.ofVirtual().start(this::close);
        } finally {
            if (buffer >= 0) {
                sendSlots.giveBack(buffer);
            }
            if (!replyPosted) {
                callEnded();
            }
        }
    }

    /**
     * A reply's Send completed (on the poller's thread: nothing here blocks) and its buffer is back: the call ends.
     * A Send that failed on a connection still open closes it, as any failed call does.
     */
    private void replySent(Throwable failed) {
        try {
            if (failed == null) {
                answered.incrementAndGet();
            } else if (!closed.get() && !connection.isFailed()) {
                LOG.warn(connection.name() + ": a reply's Send failed, closing", failed);
                Thread.ofVirtual().start(this::close);
            }
        } finally {
            callEnded();
        }
    }

    private void callEnded() {
        inProgress.decrementAndGet();
        lastActivity = System.nanoTime();
        callSlots.giveBack();
        calls.arriveAndDeregister();
        takeNextMessage(); // the slot's next message: on this thread, no loop to wake
    }

    /**
     * Closes the connection if a reply's Send (with the RDMA Writes before it) has not completed within its deadline
     * as of {@code now}: the peer does not acknowledge it. Called by the server's watch ({@link IdleWatch}).
     *
     * @return whether it closed the connection
     */
    boolean closeIfReplyOverdue(long now) {
        SendSlots.Pending late = sendSlots.overdue(now);
        if (late == null || closed.get() || !lateReplyReported.compareAndSet(false, true)) {
            return false;
        }
        if (late.withWrites()) {
            statistics.transferTimeout();
            LOG.warn(connection.name() + ": closing: the reply's RDMA Writes and Send did not complete in "
                    + late.waitMillis() + " ms");
        } else {
            LOG.warn(connection.name() + ": closing: a reply's Send did not complete in " + late.waitMillis() + " ms");
        }
        Thread.ofVirtual().start(this::close);
        return true;
    }

    /**
     * Fails the waits for chunk transfers whose deadline has passed as of {@code now}: their calls then close the
     * connection ({@link TransferWaits}). Called by the server's watch ({@link IdleWatch}).
     */
    void expireOverdueTransfers(long now) {
        transfers.expireOverdue(now);
    }

    /**
     * {@return whether no call has been taken or run on this connection for longer than {@code idleNanos} before
     *         {@code now} (calls waiting for a slot count as activity: a slot is only free when none runs)}
     */
    boolean idleLongerThan(long now, long idleNanos) {
        return !closed.get() && inProgress.get() == 0 && now - lastActivity > idleNanos;
    }

    /**
     * Logs how a connection that failed (rather than being closed by this server) ended. A client with more calls
     * outstanding than the credits granted broke RFC 8166 section 3.3.1; on iWARP such a flood ends the connection
     * when a Send finds no receive posted. That is one WARN line naming the peer and the limit. Any other end (an
     * orderly disconnect, a client that vanished, siw flushing on close) goes at DEBUG. Outstanding calls are those
     * taken and not answered, plus those still waiting in receive buffers.
     */
    private void reportEnd() {
        if (!connection.isFailed()) {
            return;
        }
        long unread = 0;
        while (true) {
            CompletableFuture<Received> f = connection.receive();
            if (!f.isDone() || f.isCompletedExceptionally()) {
                break;
            }
            unread++;
        }
        long outstanding = taken.get() - answered.get() + unread;
        int credits = settings().maxCredits();
        if (outstanding > credits) {
            LOG.warn(connection.name() + ": connection ended with " + outstanding
                    + " calls outstanding, beyond the " + credits + " credits granted ("
                    + receiveDepth(credits) + " receives posted)");
        } else {
            LOG.debug(connection.name() + ": connection ended, " + outstanding + " calls outstanding");
        }
    }

    /** Closes the connection once the calls in flight have finished (they fail fast on a dead queue pair). */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        callSlots.close(); // no slot is taken any more: no message more
        try {
            if (!connection.isFailed()) {
                // Ended by us (a protocol error): disconnect first, so RDMA operations of calls in flight fail
                // and those calls end.
                connection.close();
            }
            int phase = calls.arrive();
            calls.awaitAdvanceInterruptibly(phase, timeoutMillis, TimeUnit.MILLISECONDS);
            reportEnd();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException e) {
            LOG.warn(connection.name() + ": calls still running at close");
        } finally {
            // the queue pair goes first: then nothing reads or writes the chunk buffers and they can be deregistered
            connection.close(); // with its queue pair, receive buffers, CQ and protection domain
            sendBuffers.close();
            transfers.close();
            onClosed.run();
        }
    }
}
