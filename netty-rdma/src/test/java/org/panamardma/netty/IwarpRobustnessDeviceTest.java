package org.panamardma.netty;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** Peer killed and backpressure over siw (the allocation probe runs on rxe: RoceRobustnessDeviceTest). */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpRobustnessDeviceTest extends RobustnessDeviceTests {}
