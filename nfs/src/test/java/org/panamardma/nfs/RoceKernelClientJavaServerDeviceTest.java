package org.panamardma.nfs;

import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/**
 * {@link KernelClientJavaServerDeviceTests} on rxe (RoCE v2), and the same tree over {@code proto=tcp} to the same
 * Java server: the reference the RDMA runs are compared with.
 */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceKernelClientJavaServerDeviceTest extends KernelClientJavaServerDeviceTests {
    @Override
    int portBase() {
        return 30049;
    }

    @Test
    void kernelClientCopiesATreeInAndOutOverTcp(RdmaTestDevice device) throws Exception {
        treeInAndOut(device, "tcp");
    }
}
