package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/**
 * {@link RpcRdmaServer}'s bounds on Soft-iWARP (siw0 clients, siw1 server), where a Send that finds no receive ends
 * the connection: the receives kept posted beyond the credits are what lets a client overrunning them be served.
 */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpServerBoundsDeviceTest extends ServerBoundsDeviceTests {}
