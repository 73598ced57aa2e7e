package org.panamardma.verbs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/**
 * {@link PostCloseRaceDeviceTests} on rxe: both send paths (ibv_wr_* and ibv_post_send), atomics and FLUSH;
 * {@value PostCloseRaceDeviceTests#CI_RACES} races per path, 10,000 with {@code -Dverbs.race.count=10000} (the soak).
 */
@RdmaDeviceTest(transport = Transport.ROCE)
class PostCloseRaceRoceDeviceTest extends PostCloseRaceDeviceTests {
    PostCloseRaceRoceDeviceTest() {
        super();
    }
}
