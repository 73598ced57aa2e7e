package org.panamardma.verbs.connection;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** A refused doorbell on Soft-RoCE: rxe says EACCES and would carry the request out at the next doorbell. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceCredentialsChangedPostDeviceTest extends CredentialsChangedPostDeviceTests {
    @Override
    String refusalText() {
        return "credentials changed after the device was opened";
    }
}
