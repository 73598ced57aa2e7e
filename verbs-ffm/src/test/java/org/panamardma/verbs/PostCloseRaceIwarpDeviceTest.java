package org.panamardma.verbs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link PostCloseRaceDeviceTests} on siw: the legacy ibv_post_send path. */
@RdmaDeviceTest(transport = Transport.IWARP)
class PostCloseRaceIwarpDeviceTest extends PostCloseRaceDeviceTests {
}
