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
        /**
         * Posts the agent's request under {@code wrId}, in the send queue's order.
         *
         * @param wrId the work request id the connection chose for the agent's slot; the completion carries it back
         * @throws RdmaException if {@code ibv_post_send} refuses the request (its errno); the link then fails the
         *                       future
         */
        void post(long wrId) throws RdmaException;
    }

    /**
     * Posts {@code post} at once in the connection's post order, in a send-queue slot reserved for the agent (never
     * waiting for the application's requests), signaled; the future completes with its completion. Fails the
     * future, without posting, once the connection has failed.
     *
     * @param post writes and posts the request; called once, on the posting thread, with the slot's work request id
     * @return completes when the request's completion arrives; fails with its
     *         {@link org.panamardma.verbs.WorkCompletionException}, with the post's {@link RdmaException}, or at once
     *         if the connection has failed
     */
    CompletableFuture<Void> postReserved(ReservedPost post);

    /**
     * {@return whether the connection has ended (failed or closed)}: its responses can no longer be sent, so a request
     * still to be executed is not executed, as a device's responder stops once its queue pair is in error.
     */
    default boolean ended() {
        return false;
    }

    /**
     * This end found a protocol error: post {@code terminate} (the Terminate message), refuse every later request,
     * and once the Terminate has gone (or the connection's timeout passed) fail what is pending with {@code cause}
     * and disconnect.
     *
     * @param cause     what pending requests fail with: names the peer's violation and the Terminate error it maps to
     * @param terminate posts the Terminate message in the agent's reserved slot
     */
    void terminate(AgentProtocolException cause, ReservedPost terminate);

    /**
     * The peer terminated the connection: fail what is pending with {@code cause} and disconnect.
     *
     * @param cause what pending requests fail with: carries the error the peer's Terminate named
     */
    void peerTerminated(AgentTerminatedException cause);

    /** {@return the connection's name, for messages} */
    String name();
}
