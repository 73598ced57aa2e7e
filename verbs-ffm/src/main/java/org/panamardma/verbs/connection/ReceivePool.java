package org.panamardma.verbs.connection;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.WcOpcode;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.WorkCompletionException;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.connection.agent.ConnectionAgent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link RdmaConnection}'s receive side: the posted receive buffers ({@link ConnectionResources}), the messages
 * taken from them in arrival order, the {@link RdmaConnection#receive()} futures waiting for one, and the batched
 * re-posting of the buffers once their messages are copied out ({@link ConnectionOptions#receiveBatch()}).
 *
 * <p>The queues are guarded by the connection's {@link ConnectionFailure} monitor (see there). Receive completions
 * come on the poller thread; {@link #receive()} from any thread.
 */
final class ReceivePool {
    private static final Logger LOG = LoggerFactory.getLogger(ReceivePool.class);
    /** wr_ids of receives have the top bit set and the buffer index below. */
    private static final long RECEIVE_BIT = 1L << 63;

    /**
     * A message taken from receive buffer {@code index}: {@code length} bytes from {@code payloadOffset}, with its
     * immediate value and the rkey a SEND with invalidate invalidated, where it had them.
     */
    private record Arrived(
            int index,
            int payloadOffset,
            int length,
            boolean hasImmediate,
            int immediate,
            boolean hasInvalidated,
            int invalidatedRkey) {}

    private final String name;
    private final ConnectionResources res;
    private final ConnectionFailure failure;
    /** The RFC 7306 agent where active (its messages are framed, its own taken here), else null. */
    private final ConnectionAgent agent;

    private final ArrayDeque<Arrived> arrived = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<Received>> waiting = new ArrayDeque<>();
    /** Taken receive buffers waiting to be posted again, by {@link ConnectionOptions#receiveBatch()}. */
    private final Object repostLock = new Object();

    private final long[] repostIds;
    private final long[] repostOffsets;
    /** Guarded by repostLock. */
    private int reposts;

    ReceivePool(String name, ConnectionResources res, ConnectionFailure failure, ConnectionAgent agent) {
        this.name = name;
        this.res = res;
        this.failure = failure;
        this.agent = agent;
        this.repostIds = new long[res.options.receiveBatch()];
        this.repostOffsets = new long[res.options.receiveBatch()];
    }

    /** The wr_id of a receive into buffer {@code index}. */
    static long receiveWrId(int index) {
        return RECEIVE_BIT | index;
    }

    /** Whether {@code wrId} is a receive's (else a request of the send queue). */
    static boolean isReceive(long wrId) {
        return (wrId & RECEIVE_BIT) != 0;
    }

    /** {@link RdmaConnection#receive()}. */
    CompletableFuture<Received> receive() {
        Arrived a;
        CompletableFuture<Received> f;
        synchronized (failure) {
            a = arrived.poll();
            if (a == null) {
                f = new CompletableFuture<>();
                ConnectionClosedException c = failure.get();
                if (c != null) {
                    f.completeExceptionally(c);
                } else {
                    waiting.add(f);
                }
                return f;
            }
        }
        f = new CompletableFuture<>();
        deliver(f, a);
        return f;
    }

    /**
     * Receive completion {@code i} of {@code wc}, on the poller thread. One in error puts the connection in the
     * failed state and fails the waiting futures (the messages already taken stay available).
     */
    void completed(WorkCompletions wc, int i) {
        long wrId = wc.wrId(i);
        int index = (int) (wrId & Integer.MAX_VALUE);
        if (wc.isSuccess(i)) {
            receivedMessage(
                    index,
                    wc.opcode(i),
                    wc.byteLength(i),
                    wc.hasImmediate(i),
                    wc.immediate(i),
                    wc.hasInvalidated(i),
                    wc.hasInvalidated(i) ? wc.invalidatedRkey(i) : 0);
            return;
        }
        WorkCompletionException e =
                new WorkCompletionException(wrId, wc.status(i), wc.vendorError(i), name + " receive buffer " + index);
        if (wc.status(i) != WcStatus.WR_FLUSH_ERR) {
            LOG.debug("{}", e.getMessage());
        }
        failure.mark(new ConnectionClosedException(name + ": queue pair in error: " + e.getMessage(), e));
        failWaiting();
    }

    /**
     * A receive completed: a WRITE with immediate data leaves its buffer untouched (an empty message with the
     * value); with the agent active the message is framed, and the agent's own are handled and their buffers
     * posted again at once.
     */
    private void receivedMessage(
            int index,
            WcOpcode opcode,
            int length,
            boolean hasImmediate,
            int immediate,
            boolean hasInvalidated,
            int invalidatedRkey) {
        if (opcode == WcOpcode.RECV_RDMA_WITH_IMM) {
            received(new Arrived(index, 0, 0, true, immediate, false, 0));
            return;
        }
        if (agent == null) {
            received(new Arrived(
                    index, 0, length, hasImmediate, hasImmediate ? immediate : 0, hasInvalidated, invalidatedRkey));
            return;
        }
        long offset = (long) index * res.receiveStride;
        ConnectionAgent.Delivery d = agent.received(res.receiveBuffers.segment().asSlice(offset, length));
        if (d == null) {
            repost(index, offset);
            return;
        }
        received(new Arrived(
                index,
                d.payloadOffset(),
                length - d.payloadOffset(),
                d.hasImmediate(),
                d.immediate(),
                hasInvalidated,
                invalidatedRkey));
    }

    private void received(Arrived a) {
        CompletableFuture<Received> f;
        synchronized (failure) {
            f = waiting.poll();
            if (f == null) {
                arrived.add(a);
                return;
            }
        }
        deliver(f, a);
    }

    /** Copies the message out, posts its buffer again, completes {@code f}. */
    private void deliver(CompletableFuture<Received> f, Arrived a) {
        long offset = (long) a.index * res.receiveStride;
        byte[] data;
        try {
            data = res.receiveBuffers
                    .segment()
                    .asSlice(offset + a.payloadOffset, a.length)
                    .toArray(JAVA_BYTE);
        } catch (IllegalStateException freed) {
            // a receive() racing close(): the buffers are freed, and the message with them
            ConnectionClosedException c = failure.get();
            f.completeExceptionally(c != null ? c : new ConnectionClosedException(name + ": connection closed"));
            return;
        }
        repost(a.index, offset);
        f.complete(new Received(data, a.hasImmediate, a.immediate, a.hasInvalidated, a.invalidatedRkey));
    }

    /** Queues a taken receive buffer to be posted again; posts the queue once it holds a batch. */
    private void repost(int index, long offset) {
        synchronized (repostLock) {
            repostIds[reposts] = receiveWrId(index);
            repostOffsets[reposts] = offset;
            reposts++;
            if (reposts >= repostIds.length) {
                postRepostsLocked();
            }
        }
    }

    /** On the poller thread after each drain: posts what waits, so no buffer waits past the next completion. */
    void postReposts() {
        synchronized (repostLock) {
            if (reposts > 0) {
                postRepostsLocked();
            }
        }
    }

    private void postRepostsLocked() {
        int n = reposts;
        reposts = 0;
        if (failure.get() != null) {
            return; // a queue pair in error flushes receives: posting more would only add flushed completions
        }
        try {
            if (n == 1) {
                res.qp.postReceive(repostIds[0], res.receiveBuffers, repostOffsets[0], res.receiveStride);
            } else {
                res.qp.postReceives(repostIds, res.receiveBuffers, repostOffsets, res.receiveStride, n);
            }
        } catch (RdmaException | RuntimeException e) {
            if (failure.get() == null) {
                LOG.warn(name + ": re-posting " + n + " receive buffers", e);
            }
        }
    }

    /**
     * {@link RdmaConnection#close()}, before the receive buffers are freed: the messages that arrived and were not
     * taken go with them, so that a later {@link #receive()} fails instead of reading freed memory (it threw
     * IllegalStateException out of receive(), from a server counting a closed connection's unread messages).
     */
    void discardArrived() {
        synchronized (failure) {
            arrived.clear();
        }
    }

    /** Fails every waiting {@link #receive()} with the connection's failure (recorded before). */
    void failWaiting() {
        ConnectionClosedException c = failure.get();
        while (true) {
            CompletableFuture<Received> f;
            synchronized (failure) {
                f = waiting.poll();
            }
            if (f == null) {
                return;
            }
            f.completeExceptionally(c);
        }
    }
}
