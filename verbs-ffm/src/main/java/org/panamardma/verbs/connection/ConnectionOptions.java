package org.panamardma.verbs.connection;

import java.time.Duration;
import java.util.Objects;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.cm.ConnectionParameters;

/**
 * How an {@link RdmaConnection} is made.
 *
 * @param sendQueueDepth     send queue depth: also the most requests (send, write, read, atomics, flush) in flight
 *                           at once; callers beyond it wait for a completion
 * @param receiveQueueDepth  receive buffers the connection owns and keeps posted
 * @param receiveBufferSize  bytes per receive buffer: the largest message {@link RdmaConnection#receive()} takes
 * @param parameters         rdma_cm connection parameters (retries, RDMA READ/atomic resources, private data)
 * @param timeout            for each connection step and for close() waiting for DISCONNECTED
 * @param receiveBatch       how many taken receive buffers are posted again together, in one
 *                           {@code ibv_post_recv} ({@link org.panamardma.verbs.QueuePair#postReceives}): 1 posts
 *                           each at once; with more, up to {@code receiveBatch - 1} buffers wait to be posted (the
 *                           rest go when the poller has drained the CQ), so keep that many receive buffers beyond
 *                           what the peer may send unanswered. 1 to {@code min(receiveQueueDepth, 64)}
 */
public record ConnectionOptions(int sendQueueDepth, int receiveQueueDepth, int receiveBufferSize,
                                ConnectionParameters parameters, Duration timeout, int receiveBatch) {
    /** 32 requests in flight, 16 receive buffers of 4 KiB, rdma_cm's defaults, 30 s, receives posted one by one. */
    public static final ConnectionOptions DEFAULTS =
            new ConnectionOptions(32, 16, 4096, ConnectionParameters.DEFAULTS, Duration.ofSeconds(30));

    /** Receives posted again one by one, as soon as each is taken. */
    public ConnectionOptions(int sendQueueDepth, int receiveQueueDepth, int receiveBufferSize,
                             ConnectionParameters parameters, Duration timeout) {
        this(sendQueueDepth, receiveQueueDepth, receiveBufferSize, parameters, timeout, 1);
    }

    public ConnectionOptions {
        if (sendQueueDepth < 1 || receiveQueueDepth < 1 || receiveBufferSize < 1) {
            throw new IllegalArgumentException("depths and buffer size must be positive: " + sendQueueDepth + ", "
                    + receiveQueueDepth + ", " + receiveBufferSize);
        }
        Objects.requireNonNull(parameters, "parameters");
        Objects.requireNonNull(timeout, "timeout");
        if (receiveBatch < 1 || receiveBatch > Math.min(receiveQueueDepth, QueuePair.MAX_RECEIVE_BATCH)) {
            throw new IllegalArgumentException("receive batch " + receiveBatch + " not in [1, min(receive queue depth "
                    + receiveQueueDepth + ", " + QueuePair.MAX_RECEIVE_BATCH + ")]");
        }
    }

    public ConnectionOptions withReceiveBatch(int n) {
        return new ConnectionOptions(sendQueueDepth, receiveQueueDepth, receiveBufferSize, parameters, timeout, n);
    }

    public ConnectionOptions withQueueDepths(int send, int receive) {
        return new ConnectionOptions(send, receive, receiveBufferSize, parameters, timeout,
                Math.max(1, Math.min(receiveBatch, receive)));
    }

    public ConnectionOptions withReceiveBufferSize(int bytes) {
        return new ConnectionOptions(sendQueueDepth, receiveQueueDepth, bytes, parameters, timeout, receiveBatch);
    }

    public ConnectionOptions withParameters(ConnectionParameters p) {
        return new ConnectionOptions(sendQueueDepth, receiveQueueDepth, receiveBufferSize, p, timeout, receiveBatch);
    }

    public ConnectionOptions withTimeout(Duration t) {
        return new ConnectionOptions(sendQueueDepth, receiveQueueDepth, receiveBufferSize, parameters, t, receiveBatch);
    }
}
