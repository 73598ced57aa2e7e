package org.panamardma.nfs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link KernelClientExportOptionsDeviceTests} on rxe (RoCE v2). */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceKernelClientExportOptionsDeviceTest extends KernelClientExportOptionsDeviceTests {
    @Override
    int portBase() {
        return 36149;
    }
}
