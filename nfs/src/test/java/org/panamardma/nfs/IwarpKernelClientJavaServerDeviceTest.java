package org.panamardma.nfs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link KernelClientJavaServerDeviceTests} on siw (iWARP). */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpKernelClientJavaServerDeviceTest extends KernelClientJavaServerDeviceTests {
    @Override
    int portBase() {
        return 31049;
    }
}
