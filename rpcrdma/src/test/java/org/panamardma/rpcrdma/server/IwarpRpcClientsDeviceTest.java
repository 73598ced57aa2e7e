package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** RpcClients by URI, client on siw0, servers on its peer. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpRpcClientsDeviceTest extends RpcClientsDeviceTests {}
