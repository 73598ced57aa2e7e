package org.panamardma.netty;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Peer killed, backpressure, allocation on the data path, over rxe. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceRobustnessDeviceTest extends RobustnessDeviceTests {
}
