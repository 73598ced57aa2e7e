package org.panamardma.verbs.connection.agent;

/**
 * A received agent message that breaks the wire format or the protocol: the agent answers it with a Terminate
 * carrying {@link #error()} and ends the connection. The decoder's one refusal: anything else it throws is a bug.
 */
public final class AgentProtocolException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The Terminate error the violation maps to. */
    private final TerminateError error;
    /** The Request Identifier the error concerns, or -1 (the Terminate then carries none). */
    private final long requestId;

    AgentProtocolException(TerminateError error, long requestId, String message) {
        super(message + " (" + error + ")", null, false, false);
        this.error = error;
        this.requestId = requestId;
    }

    AgentProtocolException(TerminateError error, String message) {
        this(error, -1, message);
    }

    /** {@return the RFC 7306 / RFC 5040 Terminate error the peer's violation maps to (sent to it in our Terminate)} */
    public TerminateError error() {
        return error;
    }

    /** {@return the Request Identifier concerned (0 to 2^32-1), or -1 if the error concerns no request} */
    public long requestId() {
        return requestId;
    }
}
