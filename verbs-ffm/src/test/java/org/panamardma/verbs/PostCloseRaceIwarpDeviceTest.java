package org.panamardma.verbs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link PostCloseRaceDeviceTests} on siw: the legacy ibv_post_send path; 10,000 races. */
@RdmaDeviceTest(transport = Transport.IWARP)
class PostCloseRaceIwarpDeviceTest extends PostCloseRaceDeviceTests {
    PostCloseRaceIwarpDeviceTest() {
        super(100);
    }
}
