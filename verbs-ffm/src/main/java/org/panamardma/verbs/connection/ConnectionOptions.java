package org.panamardma.verbs.connection;

import java.time.Duration;
import java.util.Objects;
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
 */
public record ConnectionOptions(int sendQueueDepth, int receiveQueueDepth, int receiveBufferSize,
                                ConnectionParameters parameters, Duration timeout) {
    /** 32 requests in flight, 16 receive buffers of 4 KiB, rdma_cm's defaults, 30 s. */
    public static final ConnectionOptions DEFAULTS =
            new ConnectionOptions(32, 16, 4096, ConnectionParameters.DEFAULTS, Duration.ofSeconds(30));

    public ConnectionOptions {
        if (sendQueueDepth < 1 || receiveQueueDepth < 1 || receiveBufferSize < 1) {
            throw new IllegalArgumentException("depths and buffer size must be positive: " + sendQueueDepth + ", "
                    + receiveQueueDepth + ", " + receiveBufferSize);
        }
        Objects.requireNonNull(parameters, "parameters");
        Objects.requireNonNull(timeout, "timeout");
    }

    public ConnectionOptions withQueueDepths(int send, int receive) {
        return new ConnectionOptions(send, receive, receiveBufferSize, parameters, timeout);
    }

    public ConnectionOptions withReceiveBufferSize(int bytes) {
        return new ConnectionOptions(sendQueueDepth, receiveQueueDepth, bytes, parameters, timeout);
    }

    public ConnectionOptions withParameters(ConnectionParameters p) {
        return new ConnectionOptions(sendQueueDepth, receiveQueueDepth, receiveBufferSize, p, timeout);
    }

    public ConnectionOptions withTimeout(Duration t) {
        return new ConnectionOptions(sendQueueDepth, receiveQueueDepth, receiveBufferSize, parameters, t);
    }
}
