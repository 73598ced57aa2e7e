package org.panamardma.netty;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Netty echo over Soft-iWARP: clients on siw0, server on siw1. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpNettyEchoDeviceTest extends NettyEchoDeviceTests {}
