package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link RpcRdmaServer} on Soft-RoCE: the requester on rxe0, the server on rxe1. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceRpcRdmaServerDeviceTest extends RpcRdmaServerDeviceTests {}
