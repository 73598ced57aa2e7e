package org.panamardma.rdmatool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.testing.TcpHeldRdmaCmPort;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.connection.ConnectionCapabilities;

/** rdma-tool on Soft-iWARP (siw0 clients, siw1 server): what siw lacks is refused or skipped with the reason. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpToolDeviceTest extends ToolDeviceTests {
    @Test
    void perfRunsWhatSiwCanDoAndRefusesAtomicsClearly(RdmaTestDevice device) throws Exception {
        perfTests(device, List.of(Perf.Test.SEND_LAT, Perf.Test.WRITE_LAT, Perf.Test.READ_LAT, Perf.Test.WRITE_BW));
        var address = serverAddress(device);
        try (PerfServer server = PerfServer.start(address, TIMEOUT, System.out)) {
            Capture out = new Capture();
            Capture err = new Capture();
            int rc = perfCommand(address, out, err, "--test", "atomic_lat", "--iters", "10");
            assertEquals(1, rc);
            assertTrue(
                    err.text().contains(device.name())
                            && err.text().toLowerCase().contains("atomic"),
                    err.text());
        }
    }

    /**
     * A perf connect whose first local port a TCP socket of the host holds: Soft-iWARP cannot bind its TCP socket to
     * it and rdma_connect fails with EADDRINUSE (seen in CI with netty-rdma's connect, stop of 2026-11-27). perf tries
     * again with a new rdma_cm id and measures; before, the run failed.
     */
    @Test
    void perfWhoseFirstPortATcpSocketHoldsConnectsOnAnother(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = serverAddress(device);
        try (PerfServer server = PerfServer.start(address, TIMEOUT, System.out)) {
            List<Perf.Result> results;
            try (TcpHeldRdmaCmPort taken = new TcpHeldRdmaCmPort(() -> boundPort(address))) {
                results = Perf.run(address, Perf.Test.WRITE_LAT, 64, false, 20, TIMEOUT);
            }
            assertEquals(1, results.size());
            assertSaneLatency(results.get(0));
        }
    }

    /** The local port a new rdma_cm id gets when it resolves {@code server}'s address; the id is closed. */
    private static int boundPort(InetSocketAddress server) {
        try (EventChannel events = EventChannel.create();
                CmId id = events.createId()) {
            CmConnector.resolveAddress(id, null, server, Duration.ofSeconds(10));
            return id.localPort();
        } catch (RdmaException e) {
            throw new IllegalStateException("resolving " + server + " on a new rdma_cm id", e);
        }
    }

    @Test
    void devinfoSaysSiwsAtomicsAndImmediateDataAreTheAgents(RdmaTestDevice device) throws Exception {
        Capture out = new Capture();
        Capture err = new Capture();
        assertEquals(0, RdmaTool.run(new String[] {"devinfo"}, out.stream, err.stream), err.text());
        String text = out.text();
        String siw = text.substring(text.indexOf(device.name() + ": "));
        assertTrue(
                siw.contains("RFC 7306: atomics by agent (ConnectionOptions.withAgent on both ends), immediate "
                        + "data by agent"),
                siw);
    }

    /**
     * The demo on siw: bytes moved, the shared counter and the CmpSwap by the RFC 7306 agent (2 clients x 25 = 50,
     * every old value distinct), and only the commit pipeline skipped, with its reason. Two clients, as before the
     * agent: each fresh siw connection is another exposure to siw's first-message race (issue 24), and the agent's
     * 4 x 25 runs in AgentDeviceTests.
     */
    @Test
    void demoRunsTheCounterByTheAgentAndSkipsOnlyWhatNoOneProvides(RdmaTestDevice device) throws Exception {
        Capture out = new Capture();
        Demo.Report r = Demo.run(serverAddress(device), 2, 25, TIMEOUT, out.stream);
        assertEquals(device.name(), r.clientDevice());
        assertTrue(r.bytesVerified(), "SEND echo, WRITE placement and READ back all verified");
        assertEquals(ConnectionCapabilities.Provider.AGENT, r.atomics());
        assertEquals(50L, r.counter());
        assertTrue(r.distinctOldValues());
        assertTrue(r.casWon() && r.casLost());
        assertNull(r.committed());
        assertEquals(1, r.skipped().size(), r.skipped().toString());
        assertTrue(r.skipped().get(0).contains("no RDMA FLUSH"), r.skipped().toString());
        assertTrue(r.ok());
        assertTrue(out.text().contains("BY THE RFC 7306 AGENT"), out.text());
    }
}
