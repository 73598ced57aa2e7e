package org.panamardma.nfs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link KnfsdRdmaDeviceTests} on rxe (RoCE v2). */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceKnfsdRdmaDeviceTest extends KnfsdRdmaDeviceTests {}
