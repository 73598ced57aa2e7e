package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** The soak with kills on Soft-iWARP: clients on siw0 (one of them in a process killed now and then), server on siw1. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpSoakDeviceTest extends SoakDeviceTests {}
