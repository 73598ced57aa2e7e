package org.panamardma.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.Expect;
import org.panamardma.verbs.FlushScope;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.TestAccess;
import org.panamardma.verbs.TransportType;
import org.panamardma.verbs.WcOpcode;

/**
 * rdma_cm on Soft-RoCE: connections between rxe0 (client) and rxe1 (server, listening on its own address) over IPv4
 * and IPv6; the CM-made queue pairs do WRITE, FLUSH, ATOMIC WRITE and FetchAdd; reject, no listener, disconnect.
 */
@RdmaDeviceTest(transport = Transport.ROCE)
class CmRoceDeviceTest {
    /** The server's region: FLUSH access where the kernel has FLUSH (before 6.2 it refuses the flag). */
    private static final Set<Access> TARGET = Expect.rxeKernelFlushAndAtomicWrite()
            ? Set.of(
                    Access.LOCAL_WRITE,
                    Access.REMOTE_READ,
                    Access.REMOTE_WRITE,
                    Access.REMOTE_ATOMIC,
                    Access.FLUSH_GLOBAL)
            : Set.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);

    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** IB CM private data arrives padded with zeros to the field's size: the sender's bytes come first. */
    private static void assertPrefix(byte[] expected, byte[] actual, int fieldSize) {
        assertEquals(fieldSize, actual.length, "private data field size");
        assertArrayEquals(expected, Arrays.copyOf(actual, expected.length), "private data");
        for (int i = expected.length; i < actual.length; i++) {
            assertEquals(0, actual[i], "padding byte " + i);
        }
    }

    @Test
    void connectsOverIpv4WithPrivateDataThenWriteFlushAtomicWriteFetchAddAndDisconnect(RdmaTestDevice device)
            throws Exception {
        byte[] fromClient = pattern(PrivateDataLimits.IB_CONNECT, 1);
        byte[] fromServer = pattern(PrivateDataLimits.IB_ACCEPT, 2);
        try (CmTestPair pair = new CmTestPair(TestAccess.ALL_REMOTE, TARGET, o -> o)) {
            InetSocketAddress address = CmTestPair.serverAddress(device, false);
            pair.connect(address, fromClient, fromServer);
            CmId clientId = pair.clientConnection.id();
            CmId serverId = pair.serverConnection.id();
            assertEquals(device.name(), clientId.context().deviceName(), "client on the test device");
            assertEquals(device.peerName().orElseThrow(), serverId.context().deviceName(), "server on the peer");
            assertEquals(TransportType.INFINIBAND, clientId.context().transportType());
            assertEquals(address, serverId.localAddress().orElseThrow());
            assertEquals(address.getPort(), clientId.peerPort());
            assertEquals(address.getPort(), serverId.localPort(), "an accepted id's source port is the listener's");
            assertEquals(
                    address.getAddress(), clientId.peerAddress().orElseThrow().getAddress());
            assertPrefix(fromClient, pair.serverConnection.request().privateData(), PrivateDataLimits.IB_CONNECT);
            assertPrefix(fromServer, pair.clientConnection.established().privateData(), PrivateDataLimits.IB_ACCEPT);
            assertEquals(
                    pair.client.qp.qpNumber(), pair.serverConnection.request().peerQpNumber());

            QueuePair qp = pair.client.qp;
            assertTrue(qp.usesExtendedSendPath(), "rdma_create_qp_ex on rxe");
            assertTrue(qp.supportsAtomics());
            assertEquals(Expect.rxeFlush(), qp.supportsFlush(), "rdma-core 45+ and Linux 6.2+");
            assertEquals(Expect.rxeAtomicWrite(), qp.supportsAtomicWrite(), "rdma-core 44+ and Linux 6.2+");
            var local = pair.client.mr;
            var remote = pair.server.mr;

            byte[] data = pattern(3000, 3);
            MemorySegment.copy(data, 0, local.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
            qp.postWrite(1, local, 0, data.length, remote.address() + 1024, remote.rkey(), SendFlags.SIGNALED);
            pair.expectSuccess(pair.client.cq, 1, WcOpcode.RDMA_WRITE);
            assertArrayEquals(data, remote.segment().asSlice(1024, data.length).toArray(ValueLayout.JAVA_BYTE));

            // FLUSH needs the FLUSH access rdma_cm does not give the responder's QP (granted on ESTABLISHED)
            if (Expect.rxeFlush()) {
                qp.postFlush(
                        2,
                        remote.address() + 1024,
                        remote.rkey(),
                        data.length,
                        FlushType.GLOBAL_VISIBILITY,
                        FlushScope.RANGE,
                        SendFlags.SIGNALED);
                pair.expectSuccess(pair.client.cq, 2, WcOpcode.FLUSH);
            } else {
                Expect.assertFlushRefused(
                        qp.deviceName(),
                        () -> qp.postFlush(
                                2,
                                remote.address() + 1024,
                                remote.rkey(),
                                data.length,
                                FlushType.GLOBAL_VISIBILITY,
                                FlushScope.RANGE,
                                SendFlags.SIGNALED));
            }

            if (Expect.rxeAtomicWrite()) {
                qp.postAtomicWrite(3, remote.address() + 64, remote.rkey(), 0x1122334455667788L, SendFlags.SIGNALED);
                pair.expectSuccess(pair.client.cq, 3, WcOpcode.ATOMIC_WRITE);
                assertEquals(0x1122334455667788L, remote.segment().get(ValueLayout.JAVA_LONG, 64));
            } else {
                Expect.assertAtomicWriteRefused(
                        qp.deviceName(),
                        () -> qp.postAtomicWrite(
                                3, remote.address() + 64, remote.rkey(), 0x1122334455667788L, SendFlags.SIGNALED));
                remote.segment().set(ValueLayout.JAVA_LONG, 64, 0x1122334455667788L); // the FetchAdd's start
            }
            assertEquals(0, pair.client.cq.poll(pair.wc), "no completion of anything refused");

            qp.postFetchAdd(4, local, 8192, remote.address() + 64, remote.rkey(), 5, SendFlags.SIGNALED);
            pair.expectSuccess(pair.client.cq, 4, WcOpcode.FETCH_ADD);
            assertEquals(0x1122334455667788L, local.segment().get(ValueLayout.JAVA_LONG, 8192), "old value");
            assertEquals(0x1122334455667788L + 5, remote.segment().get(ValueLayout.JAVA_LONG, 64));

            System.out.println("rxe disconnect: " + CmTestPair.disconnectBoth(clientId, serverId));
        }
    }

    /**
     * IPv6 on rxe: sockaddr_in6 addresses resolve (ADDR_RESOLVED, ROUTE_RESOLVED on the test device), and the
     * connection either works (then a WRITE crosses it) or is refused by the server kernel's CMA before any
     * CONNECT_REQUEST reaches the listener — what the testbed shows (rping over fd77:0::2 too: "cma event
     * RDMA_CM_EVENT_REJECTED, error 28"): the IB CM REJ with reason 28 that ib_cm sends when the CMA's request handler
     * fails (it checks the request's IPv6 addresses against the receiving netdev by a route lookup, which the
     * testbed's policy routing of the two local veth ends does not satisfy for IPv6).
     */
    @Test
    void ipv6ResolvesAndConnectsOrIsRefusedByTheServerKernel(RdmaTestDevice device) throws Exception {
        try (CmTestPair pair = new CmTestPair()) {
            InetSocketAddress address = CmTestPair.serverAddress(device, true);
            CmId resolved = pair.clientChannel.createId();
            resolved.resolveAddress(address, CmTestPair.TIMEOUT);
            resolved.expect(CmEventType.ADDR_RESOLVED, CmTestPair.TIMEOUT);
            resolved.resolveRoute(CmTestPair.TIMEOUT);
            resolved.expect(CmEventType.ROUTE_RESOLVED, CmTestPair.TIMEOUT);
            assertEquals(device.name(), resolved.context().deviceName());
            assertEquals(address, resolved.peerAddress().orElseThrow());
            assertEquals(
                    device.ipv6().orElseThrow(),
                    resolved.localAddress().orElseThrow().getAddress());
            resolved.close();

            try {
                pair.connect(address, new byte[] {6}, new byte[] {7});
            } catch (CmEventException e) {
                System.out.println("rxe IPv6: " + e.event() + "; server side: " + Arrays.toString(e.getSuppressed()));
                assertEquals(CmEventType.REJECTED, e.event().type(), e.getMessage());
                assertEquals(
                        CmEvent.IB_REJECT_CONSUMER_DEFINED,
                        e.event().status(),
                        e.event().statusDescription());
                assertEquals(1, e.getSuppressed().length, "the server's side");
                Throwable server = e.getSuppressed()[0];
                assertTrue(
                        server instanceof IllegalStateException
                                && server.getMessage().contains("closed while " + "waiting"),
                        "the listener saw no request and was closed waiting: " + server);
                return;
            }
            System.out.println("rxe IPv6: connected");
            assertEquals(6, pair.serverConnection.request().privateData()[0]);
            assertEquals(7, pair.clientConnection.established().privateData()[0]);
            var local = pair.client.mr;
            var remote = pair.server.mr;
            local.segment().setString(0, "over IPv6");
            pair.client.qp.postWrite(1, local, 0, 16, remote.address(), remote.rkey(), SendFlags.SIGNALED);
            pair.expectSuccess(pair.client.cq, 1, WcOpcode.RDMA_WRITE);
            assertEquals("over IPv6", remote.segment().getString(0));
        }
    }

    @Test
    void rejectCarriesPrivateDataAndStatusToTheClient(RdmaTestDevice device) throws Exception {
        byte[] reason = pattern(PrivateDataLimits.IB_REJECT, 4);
        try (CmTestPair pair = new CmTestPair()) {
            InetSocketAddress address = CmTestPair.serverAddress(device, false);
            pair.listen(address);
            CompletableFuture<String> server = CompletableFuture.supplyAsync(() -> {
                try {
                    CmEvent request = pair.listener.expect(CmEventType.CONNECT_REQUEST, CmTestPair.TIMEOUT);
                    IllegalArgumentException tooLong = assertThrows(
                            IllegalArgumentException.class,
                            () -> request.id().reject(new byte[PrivateDataLimits.IB_REJECT + 1]));
                    request.id().reject(reason);
                    request.id().close();
                    return tooLong.getMessage();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            CmEventException e = assertThrows(
                    CmEventException.class,
                    () -> CmConnector.connect(
                            pair.clientChannel,
                            address,
                            ConnectionParameters.DEFAULTS,
                            pair.client,
                            CmTestPair.TIMEOUT));
            System.out.println("rxe reject: " + e.event() + "; too long: " + server.get(60, TimeUnit.SECONDS));
            assertEquals(CmEventType.REJECTED, e.event().type());
            assertEquals(
                    CmEvent.IB_REJECT_CONSUMER_DEFINED,
                    e.event().status(),
                    e.event().statusDescription());
            assertPrefix(reason, e.event().privateData(), PrivateDataLimits.IB_REJECT);
            assertTrue(pair.client.qp.isClosed(), "the failed connection's id and QP are closed");
        }
    }

    @Test
    void connectToAPortNobodyListensOnFailsFastWithTheCmReason(RdmaTestDevice device) throws Exception {
        try (CmTestPair pair = new CmTestPair()) {
            InetSocketAddress address = CmTestPair.serverAddress(device, false);
            // private data over the RoCE connect limit is refused before anything is sent
            CmId probe = pair.clientChannel.createId();
            probe.resolveAddress(address, CmTestPair.TIMEOUT);
            probe.expect(CmEventType.ADDR_RESOLVED, CmTestPair.TIMEOUT);
            IllegalArgumentException tooLong = assertThrows(
                    IllegalArgumentException.class,
                    () -> probe.connect(
                            ConnectionParameters.DEFAULTS.withPrivateData(new byte[PrivateDataLimits.IB_CONNECT + 1])));
            assertTrue(tooLong.getMessage().contains("56"), tooLong.getMessage());
            probe.close();

            long start = System.nanoTime();
            CmEventException e = assertThrows(
                    CmEventException.class,
                    () -> CmConnector.connect(
                            pair.clientChannel,
                            address,
                            ConnectionParameters.DEFAULTS,
                            pair.client,
                            CmTestPair.TIMEOUT));
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.println("rxe no listener: " + e.event() + " after " + millis + " ms");
            assertTrue(
                    e.event().type() == CmEventType.REJECTED || e.event().type() == CmEventType.UNREACHABLE,
                    e.getMessage());
            assertFalse(e.event().status() == 0, "a reason");
            assertTrue(millis < Duration.ofSeconds(20).toMillis(), "fails fast: " + millis + " ms");
        }
    }
}
