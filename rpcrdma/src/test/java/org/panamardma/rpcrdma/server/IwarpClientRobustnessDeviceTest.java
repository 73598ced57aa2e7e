package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Client robustness, Java client on siw0, Java server on its peer. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpClientRobustnessDeviceTest extends ClientRobustnessDeviceTests {}
