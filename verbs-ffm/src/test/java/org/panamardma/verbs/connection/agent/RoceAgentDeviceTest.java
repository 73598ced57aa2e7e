package org.panamardma.verbs.connection.agent;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.connection.ConnectionCapabilities;

/**
 * The agent on Soft-RoCE (rxe0 client, rxe1 server), forced ({@link AgentMode#ALWAYS}) although rxe has atomics and
 * immediate data of its own: the same tests as on siw, on a transport whose device path they can be compared with.
 */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceAgentDeviceTest extends AgentDeviceTests {
    @Override
    AgentMode mode() {
        return AgentMode.ALWAYS;
    }

    /**
     * An end in {@link AgentMode#WHERE_DEVICE_LACKS} on rxe keeps rxe's own atomics and still serves the agent of a
     * peer that forces it: both kinds land on the same word, each atomic within its own kind.
     */
    @Test
    void anEndThatDoesNotForceTheAgentUsesRxesAtomicsAndServesThePeers(RdmaTestDevice device) throws Exception {
        try (Setup s = new Setup(device, BASE.withAgent(AgentMode.WHERE_DEVICE_LACKS, DEPTH), options(), 1)) {
            ConnectionCapabilities server = s.serverSide().capabilities();
            assertEquals(ConnectionCapabilities.Provider.DEVICE, server.atomics(), server.toString());
            assertEquals(
                    ConnectionCapabilities.Provider.AGENT,
                    s.client().capabilities().atomics());
            MemoryRegion at = atomicRegion(s.serverSide(), 8);
            MemoryRegion back = atomicRegion(s.client(), 8);
            assertEquals(0L, await(s.client().fetchAdd(at.address(), at.rkey(), 5)), "by the server's agent");
            assertEquals(0L, await(s.serverSide().fetchAdd(back.address(), back.rkey(), 7)), "by rxe");
            assertEquals(5, at.segment().get(JAVA_LONG, 0));
            assertEquals(7, back.segment().get(JAVA_LONG, 0));
            assertEquals(1, s.serverSide().agentStatistics().orElseThrow().requestsExecuted());
            assertEquals(0, s.client().agentStatistics().orElseThrow().requestsExecuted(), "rxe's, not the agent's");
            assertTrue(s.serverSide().capabilities().agentActive());
        }
    }
}
