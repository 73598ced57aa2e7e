package org.panamardma.verbs;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.ffi.StubProviderAssumption;

/**
 * Issue 25 item 4 on the host: {@link AbortSafetyProbe} against the stub provider, whose {@code ibv_wr_start} and
 * {@code ibv_start_poll} take a spinlock as rxe's do. A post or poll that failed between the pair's two calls left it
 * held, and the next one on the QP or CQ spun forever (the probe's JVM then had to be killed): on 5c5f9a1 this test
 * (as first committed, when "ext" was that path) failed at {@code ext.sendAfter}; with only the post fixed, at
 * {@code ext.pollAfter}; with only the inline copy fixed, at {@code ext.writeAfter} (the closed list). Since issue
 * 26 the extended QP posts SEND and WRITE with ibv_post_send, and "wr" is the ibv_wr_* path of those runs.
 */
class StubAbortSafetyTest {

    @Test
    void aPostOrPollRefusedInTheMiddleOfTheExtendedApiLeavesNoLockHeld() throws Exception {
        StubProviderAssumption.load(); // skips (or fails where required) without gcc or the header set
        AbortSafetyProbe.assertNoLockLeftHeld(Duration.ofSeconds(120), "stub");
    }
}
