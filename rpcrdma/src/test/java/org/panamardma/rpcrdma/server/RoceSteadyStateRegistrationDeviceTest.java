package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Steady-state registrations of the server and client on rxe. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceSteadyStateRegistrationDeviceTest extends SteadyStateRegistrationDeviceTests {}
