package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Java client on siw0, Java server on siw1. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpJavaClientServerDeviceTest extends JavaClientServerDeviceTests {}
