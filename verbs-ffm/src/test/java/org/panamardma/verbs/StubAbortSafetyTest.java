package org.panamardma.verbs;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.ffi.StubProviderAssumption;

/**
 * Issue 25 item 4 on the host: {@link AbortSafetyProbe} against the stub provider, whose {@code ibv_wr_start} and
 * {@code ibv_start_poll} take a spinlock as rxe's do. A post or poll that failed between the pair's two calls left it
 * held, and the next one on the QP or CQ spun forever (the probe's JVM then had to be killed): on 5c5f9a1 this test
 * fails at {@code ext.sendAfter}.
 */
class StubAbortSafetyTest {

    @Test
    void aPostOrPollRefusedInTheMiddleOfTheExtendedApiLeavesNoLockHeld() throws Exception {
        StubProviderAssumption.load(); // skips (or fails where required) without gcc or the header set
        AbortSafetyProbe.assertNoLockLeftHeld(Duration.ofSeconds(120), "stub");
    }
}
