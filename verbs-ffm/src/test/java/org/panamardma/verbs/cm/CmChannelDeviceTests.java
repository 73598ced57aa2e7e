package org.panamardma.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testing.Placement;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WcOpcode;

/**
 * The event channel under the ways applications use it, on each transport: two threads waiting on one channel for
 * different ids (client and server in one process); an address nobody answers for; a neighbour entry that is gone.
 */
abstract class CmChannelDeviceTests {

    @Test
    void clientAndServerWaitingOnOneChannelFromTwoThreadsBothProceed(RdmaTestDevice device) throws Exception {
        try (CmTestPair pair = new CmTestPair(
                org.panamardma.verbs.TestAccess.ALL_REMOTE, org.panamardma.verbs.TestAccess.ALL_REMOTE, o -> o, true)) {
            assertTrue(pair.clientChannel == pair.serverChannel);
            InetSocketAddress address = CmTestPair.serverAddress(device, false);
            long start = System.nanoTime();
            // the server thread waits for CONNECT_REQUEST and ESTABLISHED while this thread waits for ADDR_RESOLVED,
            // ROUTE_RESOLVED and ESTABLISHED, all on the same channel
            pair.connect(address, new byte[] {1, 2, 3}, new byte[] {4, 5, 6});
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.println(device.name() + ": connected with one shared event channel in " + millis + " ms");
            assertArrayEquals(
                    new byte[] {1, 2, 3}, java.util.Arrays.copyOf(pair.serverConnection.peerPrivateData(), 3));
            assertArrayEquals(
                    new byte[] {4, 5, 6}, java.util.Arrays.copyOf(pair.clientConnection.peerPrivateData(), 3));
            // and bytes move over the connection it made
            pair.client.mr.segment().set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
            pair.clientConnection
                    .queuePair()
                    .postWrite(
                            7,
                            pair.client.mr,
                            0,
                            8,
                            pair.server.mr.address(),
                            pair.server.mr.rkey(),
                            SendFlags.SIGNALED);
            pair.expectSuccess(pair.client.cq, 7, WcOpcode.RDMA_WRITE);
            Placement.assertPlaced(
                    pair.client.mr.segment().asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE),
                    pair.server.mr.segment(),
                    "the 8 bytes written");
            // a disconnect from one thread, seen by the other waiting on the same channel
            System.out.println(CmTestPair.disconnectBoth(pair.clientConnection.id(), pair.serverConnection.id()));
        }
    }

    @Test
    void resolvingAnAddressNobodyAnswersForFailsWithTheCmsReasonWithinItsTimeout(RdmaTestDevice device)
            throws Exception {
        // a host address in the device's own subnet that nobody owns: the neighbour resolution cannot finish
        InetAddress own = device.ipv4().orElseThrow();
        byte[] b = own.getAddress();
        b[3] = (byte) 250;
        InetSocketAddress nobody = new InetSocketAddress(Inet4Address.getByAddress(b), CmTestPair.nextPort());
        try (EventChannel channel = EventChannel.create();
                CmId id = channel.createId()) {
            long start = System.nanoTime();
            Duration cmTimeout = Duration.ofSeconds(2);
            Exception e = assertThrows(Exception.class, () -> {
                // bound to the device's address so rdma_cm looks on its netdev (the routing table's answer)
                id.resolveAddress(new InetSocketAddress(own, 0), nobody, cmTimeout);
                CmEvent addr = id.expect(CmEventType.ADDR_RESOLVED, Duration.ofSeconds(30));
                // some stacks resolve the address lazily: then the route or the connect must fail
                id.resolveRoute(cmTimeout);
                id.expect(CmEventType.ROUTE_RESOLVED, Duration.ofSeconds(30));
                throw new AssertionError("resolved an address nobody owns: " + addr);
            });
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.println(device.name() + ": resolving " + nobody + " failed after " + millis + " ms: " + e);
            CmEventException cm =
                    assertInstanceOf(CmEventException.class, e, "the CM's reason, not our own timeout: " + e);
            assertTrue(
                    cm.event().type() == CmEventType.ADDR_ERROR || cm.event().type() == CmEventType.ROUTE_ERROR,
                    cm.getMessage());
            assertNotEquals(0, cm.event().status(), "an errno in the event's status");
            assertTrue(millis < 25_000, "no hang: " + millis + " ms");
        }
    }

    @Test
    void connectingWithoutAValidNeighbourEntryTakesOneShortAttemptNotTheWholeTimeout(RdmaTestDevice device)
            throws Exception {
        RdmaTestDevice peer = device.peer().orElseThrow();
        InetSocketAddress address = CmTestPair.serverAddress(device, false);
        // the kernel's own behaviour, for the record: one resolution with the whole timeout after a flush
        flushNeighbours(device, peer);
        try (EventChannel channel = EventChannel.create();
                CmId id = channel.createId()) {
            long start = System.nanoTime();
            id.resolveAddress(address, Duration.ofSeconds(3));
            id.expect(CmEventType.ADDR_RESOLVED, Duration.ofSeconds(10));
            System.out.println(device.name() + ": one rdma_resolve_addr (3 s timeout) after a neighbour flush took "
                    + (System.nanoTime() - start) / 1_000_000 + " ms");
        }
        // CmConnector, with the 30 s timeout applications use: a lost neighbour answer costs one short attempt
        flushNeighbours(device, peer);
        try (CmTestPair pair = new CmTestPair()) {
            long start = System.nanoTime();
            pair.connect(address, new byte[] {1}, new byte[] {2});
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.println(device.name() + ": connected after a neighbour flush in " + millis + " ms");
            assertTrue(
                    millis < 15_000,
                    "connect after a neighbour flush took " + millis + " ms: it waited for " + "the whole "
                            + CmTestPair.TIMEOUT + " resolve timeout, not for one short attempt");
            // and the connection works
            pair.client.mr.segment().set(ValueLayout.JAVA_LONG, 0, 0x5EED5EED5EED5EEDL);
            pair.clientConnection
                    .queuePair()
                    .postWrite(
                            9,
                            pair.client.mr,
                            0,
                            8,
                            pair.server.mr.address(),
                            pair.server.mr.rkey(),
                            SendFlags.SIGNALED);
            pair.expectSuccess(pair.client.cq, 9, WcOpcode.RDMA_WRITE);
            Placement.assertPlaced(
                    pair.client.mr.segment().asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE),
                    pair.server.mr.segment(),
                    "the 8 bytes written");
        }
    }

    @Test
    void resolvingAnAddressNobodyAnswersForInAttemptsEndsWithTheCmsTimeout(RdmaTestDevice device) throws Exception {
        InetAddress own = device.ipv4().orElseThrow();
        byte[] b = own.getAddress();
        b[3] = (byte) 251;
        InetSocketAddress nobody = new InetSocketAddress(Inet4Address.getByAddress(b), CmTestPair.nextPort());
        try (EventChannel channel = EventChannel.create();
                CmId id = channel.createId()) {
            long start = System.nanoTime();
            // three attempts of a second on the same id: a second rdma_resolve_addr after ADDR_ERROR is accepted
            CmEventException e = assertThrows(
                    CmEventException.class,
                    () -> CmConnector.resolveAddress(id, new InetSocketAddress(own, 0), nobody, Duration.ofSeconds(3)));
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.println(
                    device.name() + ": resolving " + nobody + " in attempts failed after " + millis + " ms: " + e);
            assertEquals(CmEventType.ADDR_ERROR, e.event().type(), e.getMessage());
            assertEquals(org.panamardma.verbs.Errno.ETIMEDOUT, e.errno(), e.getMessage());
            assertTrue(millis >= 2_500, "gave up before the timeout: " + millis + " ms");
            assertTrue(millis < 15_000, "no hang: " + millis + " ms");
        }
    }

    /** {@code ip neigh flush} on both devices' netdevs: the next resolution finds no neighbour entry. */
    private static void flushNeighbours(RdmaTestDevice... devices) throws Exception {
        for (RdmaTestDevice d : devices) {
            List<String> command = new ArrayList<>(List.of("ip", "neigh", "flush", "dev", d.netdev()));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "ip neigh flush hangs");
            Assumptions.assumeTrue(
                    p.exitValue() == 0,
                    () -> "flushing the neighbour table needs CAP_NET_ADMIN " + "(root, as in the testbed): "
                            + String.join(" ", command) + ": " + out.strip());
        }
    }
}
