package org.panamardma.verbs;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.panamardma.verbs.ffi.StubProviderAssumption;

/**
 * What the stub-provider test classes share: the stub provider loaded (or the class skipped, saying why) and one
 * loopback QP on each send path, opened before the class's first test and closed after its last. JUnit runs this
 * class's {@code @BeforeAll} before a subclass's own and its {@code @AfterAll} after, so a subclass may use the
 * loopbacks in both. Each test class had these lines of its own.
 */
abstract class StubLoopbackFixture {
    /** Each loopback's queue depth: room for the longest chain the tests post. */
    static final int QUEUE_DEPTH = 64;

    private static StubLoopbacks loops;
    static StubLoopback extended;
    static StubLoopback legacy;
    static StubLoopback workRequests;

    @BeforeAll
    static void openLoopbacks() throws Exception {
        StubProviderAssumption.load();
        loops = StubLoopbacks.open(QUEUE_DEPTH);
        extended = loops.extended();
        legacy = loops.legacy();
        workRequests = loops.workRequests();
    }

    @AfterAll
    static void closeLoopbacks() {
        if (loops != null) {
            loops.close();
            loops = null;
        }
    }
}
