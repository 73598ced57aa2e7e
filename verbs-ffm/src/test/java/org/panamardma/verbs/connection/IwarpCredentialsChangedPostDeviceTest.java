package org.panamardma.verbs.connection;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/**
 * A refused doorbell on Soft-iWARP: siw returns -1, its errno lost, and its send queue would send nothing more
 * (the connection's requests only timed out, before the connection ended itself).
 */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpCredentialsChangedPostDeviceTest extends CredentialsChangedPostDeviceTests {
    @Override
    String refusalText() {
        return "siw does when the kernel refuses its doorbell";
    }
}
