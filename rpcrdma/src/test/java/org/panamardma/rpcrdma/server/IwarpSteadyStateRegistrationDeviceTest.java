package org.panamardma.rpcrdma.server;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Steady-state registrations of the server and client on siw. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpSteadyStateRegistrationDeviceTest extends SteadyStateRegistrationDeviceTests {}
