package org.panamardma.verbs.connection.agent;

/**
 * What a connection's agent has done so far.
 *
 * @param ird                    requests it executes at once for the peer (its own depth)
 * @param ord                    requests it may have outstanding at the peer: min(its depth, the peer's IRD)
 * @param requestsSent           Atomic Requests this end sent
 * @param responsesReceived      Atomic Responses this end received
 * @param requestsExecuted       the peer's Atomic Requests this end executed (each exactly once)
 * @param requestsReplayed       the peer's retransmitted requests answered from the record, not executed again
 * @param outstandingHighWater   the most of this end's requests outstanding at once (at most {@code ord})
 * @param unansweredHighWater    the most of this end's responses in its send queue at once (at most 2 x ird)
 * @param immediateDataSent      Immediate Data carried by the agent (Sends with immediate data included)
 */
public record AgentStatistics(
        int ird,
        int ord,
        long requestsSent,
        long responsesReceived,
        long requestsExecuted,
        long requestsReplayed,
        int outstandingHighWater,
        int unansweredHighWater,
        long immediateDataSent) {}
