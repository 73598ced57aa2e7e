package org.panamardma.nfs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link IdleServerCpuDeviceTests} on siw (iWARP). */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpIdleServerCpuDeviceTest extends IdleServerCpuDeviceTests {
    @Override
    int portBase() {
        return 38149;
    }
}
