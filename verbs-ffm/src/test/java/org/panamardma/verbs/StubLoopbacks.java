package org.panamardma.verbs;

import java.io.IOException;
import org.panamardma.verbs.ffi.StubProvider;

/** One stub loopback QP on each send path (extended, legacy, work requests), opened and closed together. */
record StubLoopbacks(StubLoopback extended, StubLoopback legacy, StubLoopback workRequests) implements AutoCloseable {

    static StubLoopbacks open(int queueDepth)
            throws StubProvider.UnavailableException, IOException, InterruptedException, RdmaException {
        StubLoopback extended = StubLoopback.open(StubLoopback.Path.EXTENDED, queueDepth);
        try {
            StubLoopback legacy = StubLoopback.open(StubLoopback.Path.LEGACY, queueDepth);
            try {
                return new StubLoopbacks(
                        extended, legacy, StubLoopback.open(StubLoopback.Path.WORK_REQUESTS, queueDepth));
            } catch (Exception e) {
                legacy.close();
                throw e;
            }
        } catch (Exception e) {
            extended.close();
            throw e;
        }
    }

    @Override
    public void close() {
        extended.close();
        legacy.close();
        workRequests.close();
    }
}
