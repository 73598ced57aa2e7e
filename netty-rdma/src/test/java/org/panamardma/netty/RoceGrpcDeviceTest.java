package org.panamardma.netty;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** gRPC over Soft-RoCE: client on rxe0, server on rxe1. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceGrpcDeviceTest extends GrpcDeviceTests {}
