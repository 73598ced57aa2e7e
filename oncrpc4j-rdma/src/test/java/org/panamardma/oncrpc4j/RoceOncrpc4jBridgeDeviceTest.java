package org.panamardma.oncrpc4j;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Clients on rxe0, the bridge (and oncrpc4j's TCP server) on rxe1's address. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceOncrpc4jBridgeDeviceTest extends Oncrpc4jBridgeDeviceTests {}
