package org.panamardma.verbs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/**
 * {@link PostCloseRaceDeviceTests} on rxe: both send paths (ibv_wr_* and ibv_post_send), atomics and FLUSH; 10,000
 * races per path.
 */
@RdmaDeviceTest(transport = Transport.ROCE)
class PostCloseRaceRoceDeviceTest extends PostCloseRaceDeviceTests {
    PostCloseRaceRoceDeviceTest() {
        super(100);
    }
}
