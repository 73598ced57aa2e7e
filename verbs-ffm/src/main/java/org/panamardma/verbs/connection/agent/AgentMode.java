package org.panamardma.verbs.connection.agent;

/**
 * Whether a connection runs the RFC 7306 agent ({@code ConnectionOptions.withAgent}): a responder-side executor of
 * atomics and carrier of immediate data, over SENDs, for devices that lack them (every iWARP device we can reach:
 * siw, iw_cxgb4, most of irdma). The agent is active on a connection only where both ends enable it ({@link
 * Handshake}); an end that enables it serves its peer's requests whatever its own device can do.
 */
public enum AgentMode {
    /** No agent: the private data and every SEND are exactly the application's (the default). */
    OFF,
    /**
     * Offer the agent, and use it for what the device lacks: atomics (FetchAdd, CmpSwap and RFC 7306's masked forms)
     * where {@code atomic_cap} is NONE, immediate data on iWARP. Where the device has them, its own are used.
     */
    WHERE_DEVICE_LACKS,
    /**
     * Offer the agent, and use it for every atomic and immediate, even where the device has them: the comparison of
     * the agent with a device's own atomics on the same device (rxe), and the agent's tests on RoCE.
     */
    ALWAYS
}
