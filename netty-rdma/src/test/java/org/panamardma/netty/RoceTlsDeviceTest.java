package org.panamardma.netty;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** TLS (Netty's SslHandler) over rxe. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceTlsDeviceTest extends TlsDeviceTests {}
