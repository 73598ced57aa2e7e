package org.panamardma.verbs.connection;

import java.time.Duration;
import java.util.Objects;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.connection.agent.AgentMode;

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
 *                           {@code ibv_post_recv} ({@link org.panamardma.verbs.QueuePair#postReceives QueuePair.postReceives}): 1 posts
 *                           each at once; with more, up to {@code receiveBatch - 1} buffers wait to be posted (the
 *                           rest go when the poller has drained the CQ), so keep that many receive buffers beyond
 *                           what the peer may send unanswered. 1 to {@code min(receiveQueueDepth, 64)}
 * @param sendSignalInterval  1: every request is posted SIGNALED and its future completes with its own completion.
 *                           More: a plain {@link RdmaConnection#send SEND} is signaled only every
 *                           {@code sendSignalInterval}-th, and whenever it takes the send queue's last free slot
 *                           or requests wait for one; the others make no completion (less for the poller to do)
 *                           and their futures complete, and their slots are freed, when a later signaled request
 *                           completes (the send queue completes in order). So the future of an unsignaled SEND
 *                           may wait for the next request: use more than 1 only where requests keep coming or a
 *                           late completion does no harm (the RPC client, whose send futures only return Send
 *                           buffers). Every other request is always signaled. 1 to {@code sendQueueDepth}
 * @param busyPoll           zero (the default): the poller sleeps on the completion channel as soon as the CQ is
 *                           empty, and a completion then costs an interrupt and a thread wake-up. Positive: after
 *                           each completion the poller keeps polling the CQ for up to this long before it arms the
 *                           channel and sleeps, so under steady traffic no completion waits for a wake-up (the
 *                           latency mode of a dedicated core: the poller thread spins, taking a CPU while traffic
 *                           flows and for {@code busyPoll} after it stops). At most one second
 * @param agent              whether the connection offers and runs the RFC 7306 agent (atomics and immediate data
 *                           over SENDs where the device lacks them, e.g. on iWARP): {@link AgentMode#OFF} (the
 *                           default) sends nothing of it; the others offer it in the private data and use it when the
 *                           peer accepts ({@link org.panamardma.verbs.connection.agent.Handshake})
 * @param agentDepth         the agent's depth: Atomic Requests this end executes at once for the peer (its IRD) and
 *                           the most it has outstanding there (its ORD, bounded by the peer's IRD). 1 to 64
 */
public record ConnectionOptions(
        int sendQueueDepth,
        int receiveQueueDepth,
        int receiveBufferSize,
        ConnectionParameters parameters,
        Duration timeout,
        int receiveBatch,
        int sendSignalInterval,
        Duration busyPoll,
        AgentMode agent,
        int agentDepth) {
    /** The longest {@link #busyPoll}: beyond it a poller would spin through idle periods for nothing. */
    public static final Duration MAX_BUSY_POLL = Duration.ofSeconds(1);
    /** The agent's default depth (IRD and ORD): 16, rxe's and siw's order of RDMA READ resources. */
    public static final int DEFAULT_AGENT_DEPTH = 16;
    /** The most {@link #agentDepth}: every unit costs 3 send-queue entries, 2 receive buffers and 192 bytes. */
    public static final int MAX_AGENT_DEPTH = 64;

    /** 32 requests in flight, 16 receive buffers of 4 KiB, rdma_cm's defaults, 30 s, receives posted one by one. */
    public static final ConnectionOptions DEFAULTS =
            new ConnectionOptions(32, 16, 4096, ConnectionParameters.DEFAULTS, Duration.ofSeconds(30));

    /**
     * Receives posted again one by one, as soon as each is taken; every request signaled.
     *
     * @param sendQueueDepth    the most requests in flight at once, at least 1
     * @param receiveQueueDepth receive buffers kept posted, at least 1
     * @param receiveBufferSize bytes per receive buffer: the largest message taken, at least 1
     * @param parameters        the rdma_cm connection parameters
     * @param timeout           the deadline of each connection step and of close's wait for DISCONNECTED
     * @throws IllegalArgumentException if a depth or the size is below 1
     */
    public ConnectionOptions(
            int sendQueueDepth,
            int receiveQueueDepth,
            int receiveBufferSize,
            ConnectionParameters parameters,
            Duration timeout) {
        this(sendQueueDepth, receiveQueueDepth, receiveBufferSize, parameters, timeout, 1, 1);
    }

    /**
     * No agent.
     *
     * @param sendQueueDepth     the most requests in flight at once, at least 1
     * @param receiveQueueDepth  receive buffers kept posted, at least 1
     * @param receiveBufferSize  bytes per receive buffer: the largest message taken, at least 1
     * @param parameters         the rdma_cm connection parameters
     * @param timeout            the deadline of each connection step and of close's wait for DISCONNECTED
     * @param receiveBatch       receive buffers posted again per {@code ibv_post_recv}, 1 to
     *                           {@code min(receiveQueueDepth, 64)}
     * @param sendSignalInterval every how many plain SENDs one is signaled, 1 to {@code sendQueueDepth}
     * @param busyPoll           how long the poller spins on an empty CQ after a completion, zero to
     *                           {@link #MAX_BUSY_POLL}
     * @throws IllegalArgumentException if a value is out of its range (see the record's components)
     */
    public ConnectionOptions(
            int sendQueueDepth,
            int receiveQueueDepth,
            int receiveBufferSize,
            ConnectionParameters parameters,
            Duration timeout,
            int receiveBatch,
            int sendSignalInterval,
            Duration busyPoll) {
        this(
                sendQueueDepth,
                receiveQueueDepth,
                receiveBufferSize,
                parameters,
                timeout,
                receiveBatch,
                sendSignalInterval,
                busyPoll,
                AgentMode.OFF,
                DEFAULT_AGENT_DEPTH);
    }

    /**
     * No busy polling: the poller sleeps as soon as the CQ is empty.
     *
     * @param sendQueueDepth     the most requests in flight at once, at least 1
     * @param receiveQueueDepth  receive buffers kept posted, at least 1
     * @param receiveBufferSize  bytes per receive buffer: the largest message taken, at least 1
     * @param parameters         the rdma_cm connection parameters
     * @param timeout            the deadline of each connection step and of close's wait for DISCONNECTED
     * @param receiveBatch       receive buffers posted again per {@code ibv_post_recv}, 1 to
     *                           {@code min(receiveQueueDepth, 64)}
     * @param sendSignalInterval every how many plain SENDs one is signaled, 1 to {@code sendQueueDepth}
     * @throws IllegalArgumentException if a value is out of its range (see the record's components)
     */
    public ConnectionOptions(
            int sendQueueDepth,
            int receiveQueueDepth,
            int receiveBufferSize,
            ConnectionParameters parameters,
            Duration timeout,
            int receiveBatch,
            int sendSignalInterval) {
        this(
                sendQueueDepth,
                receiveQueueDepth,
                receiveBufferSize,
                parameters,
                timeout,
                receiveBatch,
                sendSignalInterval,
                Duration.ZERO);
    }

    /** Options; refuses depths or sizes below 1 and null parameters or timeout. */
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
        if (sendSignalInterval < 1 || sendSignalInterval > sendQueueDepth) {
            throw new IllegalArgumentException("send signal interval " + sendSignalInterval + " not in [1, send queue "
                    + "depth " + sendQueueDepth + "]");
        }
        Objects.requireNonNull(busyPoll, "busyPoll");
        if (busyPoll.isNegative() || busyPoll.compareTo(MAX_BUSY_POLL) > 0) {
            throw new IllegalArgumentException("busy poll " + busyPoll + " not in [0, " + MAX_BUSY_POLL + "]");
        }
        Objects.requireNonNull(agent, "agent");
        if (agentDepth < 1 || agentDepth > MAX_AGENT_DEPTH) {
            throw new IllegalArgumentException("agent depth " + agentDepth + " not in [1, " + MAX_AGENT_DEPTH + "]");
        }
    }

    /**
     * These options with every {@code n}-th plain SEND signaled ({@link #sendSignalInterval()}).
     *
     * @param n 1 (every request signaled) to the send queue depth
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if {@code n} is out of range
     */
    public ConnectionOptions withSendSignalInterval(int n) {
        return new ConnectionOptions(
                sendQueueDepth,
                receiveQueueDepth,
                receiveBufferSize,
                parameters,
                timeout,
                receiveBatch,
                n,
                busyPoll,
                agent,
                agentDepth);
    }

    /**
     * These options with taken receive buffers posted again {@code n} at a time.
     *
     * @param n 1 (each at once) to {@code min(receiveQueueDepth, 64)}
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if {@code n} is out of range
     */
    public ConnectionOptions withReceiveBatch(int n) {
        return new ConnectionOptions(
                sendQueueDepth,
                receiveQueueDepth,
                receiveBufferSize,
                parameters,
                timeout,
                n,
                sendSignalInterval,
                busyPoll,
                agent,
                agentDepth);
    }

    /**
     * These options with {@code send} requests in flight at most and {@code receive} receive buffers.
     *
     * @param send    the most requests in flight (the send queue depth), at least 1 and at least the send signal
     *                interval
     * @param receive receive buffers kept posted, at least 1 and at least the receive batch
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if a depth is out of range
     */
    public ConnectionOptions withQueueDepths(int send, int receive) {
        return new ConnectionOptions(
                send,
                receive,
                receiveBufferSize,
                parameters,
                timeout,
                Math.max(1, Math.min(receiveBatch, receive)),
                Math.max(1, Math.min(sendSignalInterval, send)),
                busyPoll,
                agent,
                agentDepth);
    }

    /**
     * These options with receive buffers of {@code bytes} bytes: the largest message taken.
     *
     * @param bytes at least 1; every buffer is registered memory held for the connection's life
     * @return a new instance; this one is unchanged
     * @throws IllegalArgumentException if {@code bytes} is below 1
     */
    public ConnectionOptions withReceiveBufferSize(int bytes) {
        return new ConnectionOptions(
                sendQueueDepth,
                receiveQueueDepth,
                bytes,
                parameters,
                timeout,
                receiveBatch,
                sendSignalInterval,
                busyPoll,
                agent,
                agentDepth);
    }

    /**
     * These options with the rdma_cm connection parameters {@code p}.
     *
     * @param p retries, RDMA READ/atomic resources and private data of the connect or accept
     * @return a new instance; this one is unchanged
     */
    public ConnectionOptions withParameters(ConnectionParameters p) {
        return new ConnectionOptions(
                sendQueueDepth,
                receiveQueueDepth,
                receiveBufferSize,
                p,
                timeout,
                receiveBatch,
                sendSignalInterval,
                busyPoll,
                agent,
                agentDepth);
    }

    /**
     * These options with {@code t} as the deadline of the connection's waits: connecting, close's DISCONNECTED.
     *
     * @param t the deadline, not null
     * @return a new instance; this one is unchanged
     */
    public ConnectionOptions withTimeout(Duration t) {
        return new ConnectionOptions(
                sendQueueDepth,
                receiveQueueDepth,
                receiveBufferSize,
                parameters,
                t,
                receiveBatch,
                sendSignalInterval,
                busyPoll,
                agent,
                agentDepth);
    }

    /**
     * Busy polling: the poller keeps polling the empty CQ for up to {@code d} after the last completion.
     *
     * @param d zero (sleep at once) to {@link #MAX_BUSY_POLL}
     * @return these options with the poller busy-polling for up to {@code d} after each completion
     * @throws IllegalArgumentException if {@code d} is negative or longer than {@link #MAX_BUSY_POLL}
     */
    public ConnectionOptions withBusyPoll(Duration d) {
        return new ConnectionOptions(
                sendQueueDepth,
                receiveQueueDepth,
                receiveBufferSize,
                parameters,
                timeout,
                receiveBatch,
                sendSignalInterval,
                d,
                agent,
                agentDepth);
    }

    /**
     * The RFC 7306 agent, of the default depth.
     *
     * @param mode when to offer and use the agent; {@link AgentMode#OFF} offers nothing
     * @return these options with the RFC 7306 agent in {@code mode} (offered in the private data, active where the peer
     *         offers it too), of the default depth
     */
    public ConnectionOptions withAgent(AgentMode mode) {
        return withAgent(mode, agentDepth);
    }

    /**
     * The RFC 7306 agent of depth {@code depth}.
     *
     * @param mode  when to offer and use the agent; {@link AgentMode#OFF} offers nothing
     * @param depth the agent's IRD and the most its ORD may be, 1 to {@link #MAX_AGENT_DEPTH}
     * @return these options with the agent in {@code mode}, executing and sending up to {@code depth} at once
     * @throws IllegalArgumentException if {@code depth} is out of range
     */
    public ConnectionOptions withAgent(AgentMode mode, int depth) {
        return new ConnectionOptions(
                sendQueueDepth,
                receiveQueueDepth,
                receiveBufferSize,
                parameters,
                timeout,
                receiveBatch,
                sendSignalInterval,
                busyPoll,
                mode,
                depth);
    }
}
