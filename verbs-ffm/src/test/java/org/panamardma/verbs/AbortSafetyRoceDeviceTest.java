package org.panamardma.verbs;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/**
 * Issue 25 item 4 as it was reproduced: on rxe, two QPs connected by hand, an inline SEND of a segment whose arena
 * was closed, then a valid post ({@link AbortSafetyProbe}, in a JVM of its own). rxe's {@code wr_start} takes the
 * send queue's spinlock; on 5c5f9a1 the failed post left it held and the next post spun in native code until the
 * probe's JVM was killed (this test then fails at {@code ext.sendAfter}). The valid requests after each misuse move
 * real data: the SEND is received and the WRITE lands in the peer's memory, checked there.
 */
@RdmaDeviceTest(transport = Transport.ROCE)
class AbortSafetyRoceDeviceTest {

    @Test
    void aPostOrPollRefusedInTheMiddleOfTheExtendedApiLeavesNoLockHeld(RdmaTestDevice device) throws Exception {
        // a JVM start and two connections under the testbed's emulation: 80 s on a quiet host, several times that on a
        // loaded one; a hang: forever
        AbortSafetyProbe.assertNoLockLeftHeld(
                Duration.ofSeconds(900), device.name(), device.peerName().orElseThrow());
    }
}
