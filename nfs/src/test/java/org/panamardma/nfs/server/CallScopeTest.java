package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.CallInput;

/**
 * A call's input memory (an NFS WRITE's data in the RPC-over-RDMA connection's registered memory) stays the call's
 * until its procedure is over, also when the transport stopped waiting for it (answered NFS3ERR_JUKEBOX) while its
 * system call may still read the data.
 */
class CallScopeTest {
    @Test
    void anAbandonedProcedureKeepsTheCallsInputUntilItIsOver() {
        AtomicInteger given = new AtomicInteger();
        CallInput input = CallInput.lentUntil(given::incrementAndGet);
        CallScope scope = input.during(() -> new CallScope(null)); // on the transport's thread
        input.close(); // the transport answered JUKEBOX and is done with the call
        assertEquals(0, given.get(), "given to another call while the abandoned WRITE may still read it");
        scope.release(); // the abandoned procedure's thread, once its system call returned
        assertEquals(1, given.get());
    }

    @Test
    void aProcedureThatEndsInTimeLetsGoAtItsHandOver() {
        AtomicInteger given = new AtomicInteger();
        CallInput input = CallInput.lentUntil(given::incrementAndGet);
        CallScope scope = input.during(() -> new CallScope(null));
        scope.handOver();
        assertEquals(0, given.get(), "the transport's own use goes on until it has replied");
        input.close();
        assertEquals(1, given.get());
    }
}
