package org.panamardma.verbs.connection;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.connection.agent.AgentLink;
import org.panamardma.verbs.connection.agent.AgentProtocolException;
import org.panamardma.verbs.connection.agent.AgentTerminatedException;
import org.panamardma.verbs.trusted.Callbacks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the RFC 7306 agent ({@link org.panamardma.verbs.connection.agent.ConnectionAgent}) may do to an
 * {@link RdmaConnection}: post its reserved SENDs in the send queue's order, and end the connection with a
 * Terminate, its own or the peer's.
 */
final class AgentHook implements AgentLink {
    private static final Logger LOG = LoggerFactory.getLogger(AgentHook.class);
    /** How long a connection that sent a Terminate waits for the peer to disconnect before it does. */
    static final Duration TERMINATE_LINGER = Duration.ofSeconds(2);

    private final String name;
    private final SendQueue sends;
    private final ConnectionFailure failure;
    private final Duration timeout;
    private final EstablishedConnection connection;

    AgentHook(
            String name,
            SendQueue sends,
            ConnectionFailure failure,
            Duration timeout,
            EstablishedConnection connection) {
        this.name = name;
        this.sends = sends;
        this.failure = failure;
        this.timeout = timeout;
        this.connection = connection;
    }

    @Override
    public boolean ended() {
        return failure.get() != null;
    }

    @Override
    public CompletableFuture<Void> postReserved(ReservedPost post) {
        return sends.postReserved(post);
    }

    /**
     * RFC 7306 section 8.1 / RFC 5040 section 7: the Terminate goes out, then the stream closes. Requests already
     * posted complete as their completions come; later ones are refused at once.
     */
    @Override
    public void terminate(AgentProtocolException cause, ReservedPost terminate) {
        LOG.warn(
                "{}: terminating the connection: the peer broke the RFC 7306 agent's protocol: {}",
                name,
                cause.getMessage());
        CompletableFuture<Void> sent = sends.postReserved(terminate);
        failure.mark(new ConnectionClosedException(
                name + ": the RFC 7306 agent terminated the connection: " + cause.getMessage(), cause));
        Callbacks.whenDone(sent.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS), name, (v, t) -> {
            connection.end().failAllPending();
            // The peer closes the stream once it has read the Terminate (its agent does, peerTerminated). A
            // disconnect from this side right after the send completes can overtake the Terminate (siw tears
            // the connection down while the message still waits in the peer's socket, and a peer handling
            // DISCONNECTED first fails its request without the RFC's error): disconnect only if the peer has
            // not within TERMINATE_LINGER.
            CompletableFuture.delayedExecutor(
                            Math.min(TERMINATE_LINGER.toNanos(), timeout.toNanos()), TimeUnit.NANOSECONDS)
                    .execute(() -> {
                        if (!connection.end().disconnectedOrClosing()) {
                            connection.end().endStream();
                        }
                    });
        });
    }

    @Override
    public void peerTerminated(AgentTerminatedException cause) {
        LOG.info("{}: {}", name, cause.getMessage());
        failure.mark(new ConnectionClosedException(name + ": " + cause.getMessage(), cause));
        connection.end().endStream();
    }

    @Override
    public String name() {
        return name;
    }
}
