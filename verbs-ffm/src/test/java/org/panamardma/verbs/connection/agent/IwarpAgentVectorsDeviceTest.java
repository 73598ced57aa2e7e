package org.panamardma.verbs.connection.agent;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** The masked-atomics vectors on Soft-iWARP, by the agent where siw has no atomics. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpAgentVectorsDeviceTest extends AgentVectorsDeviceTests {
    @Override
    AgentMode mode() {
        return AgentMode.WHERE_DEVICE_LACKS;
    }
}
