package org.panamardma.verbs.connection.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.connection.ConnectionCapabilities;

/**
 * The agent on Soft-iWARP (siw0 client, siw1 server), where the device has neither atomics nor immediate data: the
 * agent provides both where the device lacks them ({@link AgentMode#WHERE_DEVICE_LACKS}).
 */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpAgentDeviceTest extends AgentDeviceTests {
    @Override
    AgentMode mode() {
        return AgentMode.WHERE_DEVICE_LACKS;
    }

    @Test
    void siwHasNeitherAtomicsNorImmediateDataOfItsOwnTheAgentProvidesBoth(RdmaTestDevice device) throws Exception {
        try (Setup s = pair(device)) {
            assertFalse(s.client().queuePair().supportsAtomics());
            assertFalse(s.client().queuePair().supportsImmediateData());
            ConnectionCapabilities c = s.client().capabilities();
            assertEquals(
                    new ConnectionCapabilities(
                            device.name(),
                            ConnectionCapabilities.Provider.AGENT,
                            ConnectionCapabilities.Provider.AGENT,
                            ConnectionCapabilities.Provider.AGENT,
                            true),
                    c);
            System.out.println(c);
        }
    }
}
