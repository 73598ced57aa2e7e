package org.panamardma.netty;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** gRPC over Soft-iWARP: client on siw0, server on siw1. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpGrpcDeviceTest extends GrpcDeviceTests {}
