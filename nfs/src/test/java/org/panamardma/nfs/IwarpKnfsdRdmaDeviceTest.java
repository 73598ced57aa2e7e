package org.panamardma.nfs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link KnfsdRdmaDeviceTests} on siw (iWARP). */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpKnfsdRdmaDeviceTest extends KnfsdRdmaDeviceTests {}
