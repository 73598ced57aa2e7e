package org.panamardma.verbs.connection.agent;

import java.util.concurrent.CompletableFuture;
import org.panamardma.verbs.RdmaException;

/**
 * What a {@link ConnectionAgent} needs of its connection (RdmaConnection implements it): posting its own SENDs
 * outside the application's send-queue permits, and ending the connection. Used by the connection layer only.
 */
public interface AgentLink {
    /** Posts one work request of the agent's, with a wr_id the connection chose; called under its post order. */
    @FunctionalInterface
    interface ReservedPost {
        /** Posts the agent's request under {@code wrId}, in the send queue's order. */
        void post(long wrId) throws RdmaException;
    }

    /**
     * Posts {@code post} at once in the connection's post order, in a send-queue slot reserved for the agent (never
     * waiting for the application's requests), signaled; the future completes with its completion. Fails the
     * future, without posting, once the connection has failed.
     */
    CompletableFuture<Void> postReserved(ReservedPost post);

    /**
     * This end found a protocol error: post {@code terminate} (the Terminate message), refuse every later request,
     * and once the Terminate has gone (or the connection's timeout passed) fail what is pending with {@code cause}
     * and disconnect.
     */
    void terminate(AgentProtocolException cause, ReservedPost terminate);

    /** The peer terminated the connection: fail what is pending with {@code cause} and disconnect. */
    void peerTerminated(AgentTerminatedException cause);

    /** The connection's name, for messages. */
    String name();
}
