package org.panamardma.nfs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link KernelClientExportOptionsDeviceTests} on siw (iWARP). */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpKernelClientExportOptionsDeviceTest extends KernelClientExportOptionsDeviceTests {
    @Override
    int portBase() {
        return 37149;
    }
}
