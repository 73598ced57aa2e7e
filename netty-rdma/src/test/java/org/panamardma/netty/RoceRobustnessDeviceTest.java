package org.panamardma.netty;

import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** Peer killed, backpressure, and allocation on the data path (on this device only), over rxe. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceRobustnessDeviceTest extends RobustnessDeviceTests {
    @Test
    void theDataPathAllocatesNothingPerMessage(RdmaTestDevice device) throws Exception {
        assertTheDataPathAllocatesNothingPerMessage(device);
    }
}
