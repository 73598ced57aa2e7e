package org.panamardma.rdmatool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** rdma-tool on Soft-RoCE (rxe0 clients, rxe1 server): every perf test, and the whole demo. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceToolDeviceTest extends ToolDeviceTests {
    @Test
    void perfRunsEveryTest(RdmaTestDevice device) throws Exception {
        perfTests(device, List.of(Perf.Test.values()));
    }

    @Test
    void demoCountsCorrectlyAndCommits(RdmaTestDevice device) throws Exception {
        Capture out = new Capture();
        Demo.Report r = Demo.run(serverAddress(device), 3, 10, TIMEOUT, out.stream);
        assertEquals(device.name(), r.clientDevice());
        assertTrue(r.bytesVerified(), "SEND echo, WRITE placement and READ back all verified");
        assertEquals(30L, r.counter(), "3 clients x 10 FetchAdds");
        assertTrue(r.distinctOldValues(), "every FetchAdd saw a different old value");
        assertEquals(Boolean.TRUE, r.casWon());
        assertEquals(Boolean.TRUE, r.casLost());
        if (ToolExpect.rxeFlushAndAtomicWrite()) {
            assertEquals(Boolean.TRUE, r.committed(), "WRITE -> FLUSH -> VERIFY -> ATOMIC WRITE");
            assertEquals(List.of(), r.skipped());
        } else {
            // rdma-core 44 has no FLUSH; a kernel before 6.2 neither FLUSH nor ATOMIC WRITE on rxe
            assertNull(r.committed());
            assertEquals(1, r.skipped().size(), r.skipped().toString());
            String why = r.skipped().get(0);
            assertTrue(
                    ToolExpect.libraryFlush()
                            ? why.startsWith(device.name() + " has no RDMA FLUSH")
                            : why.startsWith(
                                    "the installed rdma-core has no RDMA FLUSH (it came in rdma-core 45; this is "
                                            + "rdma-core " + org.panamardma.verbs.RdmaCore.version() + ")"),
                    why);
        }
        assertTrue(r.ok());
        assertTrue(out.text().contains("The counter now reads 30"), out.text());
    }
}
