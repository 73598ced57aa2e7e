package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Client robustness, Java client on rxe0, Java server on its peer. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceClientRobustnessDeviceTest extends ClientRobustnessDeviceTests {}
