package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** The soak with kills on Soft-RoCE: clients on rxe0 (one of them in a process killed now and then), server on rxe1. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceSoakDeviceTest extends SoakDeviceTests {}
