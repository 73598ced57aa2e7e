package org.panamardma.netty;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Netty echo over Soft-RoCE: clients on rxe0, server on rxe1. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceNettyEchoDeviceTest extends NettyEchoDeviceTests {}
