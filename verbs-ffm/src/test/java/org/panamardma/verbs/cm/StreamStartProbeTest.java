package org.panamardma.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stream start probe's decisions, on the host: when a READ may be sent, and how the waits grow. */
class StreamStartProbeTest {
    private static CmEvent established(int responderResources, int initiatorDepth) {
        return new CmEvent(
                CmEventType.ESTABLISHED,
                0,
                null,
                null,
                new ConnectionParameters(responderResources, initiatorDepth, 7, 7, new byte[0]),
                0);
    }

    @Test
    void probesOnlyWhereReadResourcesWereGrantedBothWays() {
        assertTrue(StreamStartProbe.possible(established(1, 1)));
        assertTrue(StreamStartProbe.possible(established(16, 4)));
        // the kernel's NFS server accepts with responder_resources = 0: a READ to it would end the connection
        assertFalse(StreamStartProbe.possible(established(0, 16)));
        assertFalse(StreamStartProbe.possible(established(16, 0)));
        assertFalse(StreamStartProbe.possible(established(0, 0)));
    }

    @Test
    void waitsDoubleFromTwentyMillisecondsUpToTheLongest() {
        List<Long> waits = new ArrayList<>();
        long wait = StreamStartProbe.FIRST_WAIT_NANOS;
        for (int i = 0; i < StreamStartProbe.MAX_PROBES; i++) {
            waits.add(wait / 1_000_000);
            wait = StreamStartProbe.nextWaitNanos(wait);
        }
        assertEquals(List.of(20L, 40L, 80L, 160L, 320L, 640L, 640L, 640L), waits);
    }
}
