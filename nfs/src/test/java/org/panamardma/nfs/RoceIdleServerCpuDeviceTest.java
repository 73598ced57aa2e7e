package org.panamardma.nfs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link IdleServerCpuDeviceTests} on rxe (RoCE v2). */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceIdleServerCpuDeviceTest extends IdleServerCpuDeviceTests {
    @Override
    int portBase() {
        return 38049;
    }
}
