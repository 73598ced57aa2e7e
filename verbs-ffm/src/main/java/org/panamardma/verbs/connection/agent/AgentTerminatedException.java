package org.panamardma.verbs.connection.agent;

import org.panamardma.verbs.WorkCompletionException;

/**
 * A request the peer's RFC 7306 agent refused with a Terminate (RFC 7306 section 8): an Atomic Request for an STag
 * the peer never registered, outside the region, without remote atomic rights, at a misaligned address, or beyond
 * the peer's IRD. The connection ends with it, as it would after the same fault on a device that executes the
 * operation itself; {@link #status()} is what such a device reports ({@code IBV_WC_REM_ACCESS_ERR} for the
 * protection errors), {@link #error()} the RFC's exact error. Also the cause of the {@code ConnectionClosedException}
 * that fails every other request of the connection then.
 */
public final class AgentTerminatedException extends WorkCompletionException {
    private static final long serialVersionUID = 1L;

    /** The error the peer's Terminate carried. */
    private final TerminateError error;
    /** The Request Identifier the Terminate named, or -1. */
    private final long requestId;

    /**
     * The peer's agent sent a Terminate with {@code error}; {@code context} names the connection.
     *
     * @param error     the Terminate's layer, error type and code, decoded (RFC 5040 section 8)
     * @param requestId the Request Identifier the Terminate named, or -1
     * @param context   the connection's name, for the message
     */
    public AgentTerminatedException(TerminateError error, long requestId, String context) {
        super(
                requestId,
                error.status(),
                0,
                context + ": the peer's RFC 7306 agent terminated the connection: " + error
                        + (requestId >= 0 ? " (Atomic Request " + requestId + ")" : ""));
        this.error = error;
        this.requestId = requestId;
    }

    /** {@return the error the peer's Terminate message carried} */
    public TerminateError error() {
        return error;
    }

    /** {@return the agent's Request Identifier of the refused request, or -1 if the Terminate named none} */
    public long requestId() {
        return requestId;
    }
}
