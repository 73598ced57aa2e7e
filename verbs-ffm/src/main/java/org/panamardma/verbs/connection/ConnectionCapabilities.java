package org.panamardma.verbs.connection;

/**
 * Who provides RFC 7306's operations on one connection: the device itself, the connection's RFC 7306 agent
 * ({@link org.panamardma.verbs.connection.agent.ConnectionAgent}), or no one (the request is refused before
 * anything is posted). {@code rxe0: atomics by device, masked atomics by device (CmpSwap loops), immediate data by
 * device}; {@code siw0 with the agent: atomics by agent, masked atomics by agent, immediate data by agent}.
 *
 * @param device        the device's name
 * @param atomics       FetchAdd and CmpSwap ({@link RdmaConnection#fetchAdd}, {@link RdmaConnection#compareSwap})
 * @param maskedAtomics RFC 7306 section 5.1's masked forms ({@link RdmaConnection#maskedFetchAdd},
 *                      {@link RdmaConnection#maskedCompareSwap}): by the agent in one request; by the device as
 *                      compare-and-swap loops over its CmpSwap
 * @param immediateData SEND and WRITE with immediate data
 * @param agentActive   whether both ends run the agent on this connection (it then also serves the peer)
 */
public record ConnectionCapabilities(
        String device, Provider atomics, Provider maskedAtomics, Provider immediateData, boolean agentActive) {
    /** Who executes an operation. */
    public enum Provider {
        /** The device does it. */
        DEVICE("by device"),
        /** The RFC 7306 agent does it, over SENDs. */
        AGENT("by agent"),
        /** Nobody does: the request is refused. */
        NONE("not available");

        private final String text;

        Provider(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    @Override
    public String toString() {
        return device + ": atomics " + atomics + ", masked atomics " + maskedAtomics
                + (maskedAtomics == Provider.DEVICE ? " (CmpSwap loops)" : "") + ", immediate data " + immediateData
                + (agentActive ? "; RFC 7306 agent active" : "");
    }
}
