package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Java client on rxe0, Java server on rxe1. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceJavaClientServerDeviceTest extends JavaClientServerDeviceTests {}
