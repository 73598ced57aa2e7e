package org.panamardma.verbs.connection;

import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionChannel;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.QueuePairOptions;
import org.panamardma.verbs.connection.agent.AgentMode;
import org.panamardma.verbs.connection.agent.ConnectionAgent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an {@link RdmaConnection} owns, made on the id's context before connect/accept (receives posted): the
 * protection domain, the completion channel and one CQ for sends and receives, the queue pair, the receive buffers
 * in one region, the 8-byte atomic result slots and, where the options offer the RFC 7306 agent, its send memory.
 */
final class ConnectionResources {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionResources.class);

    final ConnectionOptions options;
    ProtectionDomain pd;
    CompletionChannel channel;
    CompletionQueue cq;
    MemoryRegion receiveBuffers;
    MemoryRegion atomicResults;
    /** The agent's send memory (ConnectionAgent), where the options offer the agent; else null. */
    MemoryRegion agentSlots;

    QueuePair qp;
    /** Receive buffers and their size: the application's, plus the agent's (ConnectionAgent) where offered. */
    final int receiveCount;

    final int receiveStride;

    ConnectionResources(ConnectionOptions options) {
        this.options = options;
        boolean agent = options.agent() != AgentMode.OFF;
        this.receiveCount =
                options.receiveQueueDepth() + (agent ? ConnectionAgent.extraReceives(options.agentDepth()) : 0);
        this.receiveStride =
                agent ? ConnectionAgent.receiveBufferSize(options.receiveBufferSize()) : options.receiveBufferSize();
    }

    /** The {@link org.panamardma.verbs.cm.CmConnector.QueuePairFactory}: everything, then the receives. */
    QueuePair create(CmId id) throws RdmaException {
        Context ctx = id.context();
        boolean agent = options.agent() != AgentMode.OFF;
        // the agent's own SENDs have send-queue entries of their own (ConnectionAgent); so has the WRITE that
        // precedes the Immediate Data message of a WRITE with immediate data
        int sendDepth = options.sendQueueDepth()
                + (agent ? options.sendQueueDepth() + ConnectionAgent.extraSendQueueDepth(options.agentDepth()) : 0);
        pd = ctx.allocateProtectionDomain();
        channel = ctx.createCompletionChannel();
        cq = ctx.createCompletionQueue(sendDepth + receiveCount, channel);
        receiveBuffers = pd.allocate((long) receiveCount * receiveStride, Set.of(Access.LOCAL_WRITE));
        atomicResults = pd.allocate(8L * options.sendQueueDepth(), Set.of(Access.LOCAL_WRITE));
        if (agent) {
            agentSlots = pd.allocate(
                    ConnectionAgent.slotMemoryBytes(options.sendQueueDepth(), options.agentDepth()), Set.of());
        }
        // two SGEs where the agent may frame a SEND: its header, then the application's bytes
        qp = id.createQueuePair(
                pd,
                QueuePairOptions.of(cq).withQueueDepths(sendDepth, receiveCount).withSge(agent ? 2 : 1, 1));
        for (int i = 0; i < receiveCount; i++) {
            postReceive(i);
        }
        return qp;
    }

    void postReceive(int index) throws RdmaException {
        qp.postReceive(ReceivePool.receiveWrId(index), receiveBuffers, (long) index * receiveStride, receiveStride);
    }

    /** Closes what was made (the id, with the queue pair, is closed before). */
    void close() {
        for (AutoCloseable r : new AutoCloseable[] {receiveBuffers, atomicResults, agentSlots, cq, channel, pd}) {
            if (r != null) {
                try {
                    r.close();
                } catch (Exception e) {
                    LOG.debug("closing " + r, e);
                }
            }
        }
    }
}
