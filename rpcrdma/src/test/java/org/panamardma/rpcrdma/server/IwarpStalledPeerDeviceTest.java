package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** A client stalling mid-transfer on Soft-iWARP: the clients on siw0, the server on siw1. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpStalledPeerDeviceTest extends StalledPeerDeviceTests {}
