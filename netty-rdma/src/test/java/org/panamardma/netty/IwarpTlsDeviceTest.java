package org.panamardma.netty;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** TLS (Netty's SslHandler) over siw. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpTlsDeviceTest extends TlsDeviceTests {}
