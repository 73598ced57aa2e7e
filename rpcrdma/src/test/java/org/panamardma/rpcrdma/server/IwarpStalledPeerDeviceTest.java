package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/**
 * A client stalling mid-transfer on Soft-iWARP: the clients on siw0, the server on siw1. Only the Read case: siw
 * completes a reply's Writes and Send once TCP has them, so a peer stalled then is not seen by the server's wait.
 */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpStalledPeerDeviceTest extends StalledPeerDeviceTests {}
