package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link RpcRdmaServer} on Soft-iWARP: the requester on siw0, the server on siw1. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpRpcRdmaServerDeviceTest extends RpcRdmaServerDeviceTests {}
