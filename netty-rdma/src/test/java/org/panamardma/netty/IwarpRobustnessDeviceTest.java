package org.panamardma.netty;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Peer killed, backpressure, allocation on the data path, over siw. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpRobustnessDeviceTest extends RobustnessDeviceTests {
}
