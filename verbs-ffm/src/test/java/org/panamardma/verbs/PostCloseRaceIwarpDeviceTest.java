package org.panamardma.verbs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/**
 * {@link PostCloseRaceDeviceTests} on siw: the legacy ibv_post_send path; {@value PostCloseRaceDeviceTests#CI_RACES}
 * races, 10,000 with {@code -Dverbs.race.count=10000} (the soak).
 */
@RdmaDeviceTest(transport = Transport.IWARP)
class PostCloseRaceIwarpDeviceTest extends PostCloseRaceDeviceTests {
    PostCloseRaceIwarpDeviceTest() {
        super();
    }
}
