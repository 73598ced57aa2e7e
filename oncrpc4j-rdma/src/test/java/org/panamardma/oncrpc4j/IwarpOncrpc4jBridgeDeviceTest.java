package org.panamardma.oncrpc4j;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Clients on siw0, the bridge (and oncrpc4j's TCP server) on siw1's address. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpOncrpc4jBridgeDeviceTest extends Oncrpc4jBridgeDeviceTests {}
