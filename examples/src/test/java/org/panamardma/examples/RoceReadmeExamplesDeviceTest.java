package org.panamardma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.RdmaCore;

/** The README's examples on Soft-RoCE, with those that need atomics, FLUSH and ATOMIC WRITE (siw has none). */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceReadmeExamplesDeviceTest extends ReadmeExamplesDeviceTests {
    /**
     * "verbs-ffm in 20 lines" (it names rxe0; its peer is rxe1): the record arrives, is flushed, and the commit word
     * becomes 1. Where the stack cannot FLUSH (rdma-core 44; Linux before 6.2's rxe) the example is refused at the
     * FLUSH with the reason, as the README says.
     */
    @Test
    void theVerbsExampleWritesFlushesAndCommits(RdmaTestDevice device) throws Exception {
        assertEquals("rxe0", device.name(), "the example names rxe0");
        try (VerbsIn20Lines example = new VerbsIn20Lines(device.peerName().orElseThrow());
                Context peer = Context.open(device.peerName().orElseThrow())) {
            boolean canFlush = RdmaCore.Feature.FLUSH.isAvailable()
                    && peer.attributes().supportsFlushGlobal()
                    && peer.attributes().supportsAtomicWrite();
            if (canFlush) {
                example.run();
                assertEquals("a record that must be durable before it counts", example.peerString(0));
                assertEquals(1L, example.peerCommitWordValue(), "the ATOMIC WRITE of the commit word");
            } else {
                UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, example::run);
                assertTrue(e.getMessage().contains("FLUSH"), e.getMessage());
                assertEquals(0L, example.peerCommitWordValue(), "nothing committed");
            }
        }
    }

    /** "Connections in 20 lines": SEND, FetchAdd and WRITE through futures, each result printed and checked. */
    @Test
    void theConnectionsExampleSendsAddsAndWrites(RdmaTestDevice device) throws Exception {
        String out = stdout(() -> ConnectionsIn20Lines.run(peerAddress(device)));
        assertEquals(
                "SEND: hello by SEND and by WRITE; counter 0 -> 1; WRITE: hello by SEND and by WRITE", out.strip());
    }
}
