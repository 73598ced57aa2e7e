package org.panamardma.verbs.connection.agent;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** The masked-atomics vectors on Soft-RoCE, by the agent forced beside rxe's own atomics. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceAgentVectorsDeviceTest extends AgentVectorsDeviceTests {
    @Override
    AgentMode mode() {
        return AgentMode.ALWAYS;
    }
}
