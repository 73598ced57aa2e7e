package org.panamardma.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.testing.Placement;
import org.panamardma.verbs.Expect;
import org.panamardma.verbs.FlushScope;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.TransportType;
import org.panamardma.verbs.WcOpcode;

/**
 * rdma_cm on Soft-iWARP, the only way siw connects: siw0 (client) to siw1 (server) over IPv4 and IPv6; SEND/RECV,
 * WRITE and READ move bytes; what iWARP/siw lacks is refused before posting.
 */
@RdmaDeviceTest(transport = Transport.IWARP)
class CmIwarpDeviceTest {
    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void assertRefused(String device, String what, Executable post) {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, post, what);
        assertTrue(e.getMessage().contains(device), "names the device: " + e.getMessage());
        System.out.println("siw refuses " + what + ": " + e.getMessage());
    }

    @Test
    void connectsWithPrivateDataBothWaysAndMovesBytes(RdmaTestDevice device) throws Exception {
        // the iWARP limit exactly: arrives unpadded
        byte[] fromClient = pattern(PrivateDataLimits.IWARP, 1);
        byte[] fromServer = pattern(PrivateDataLimits.IWARP, 2);
        try (CmTestPair pair = new CmTestPair()) {
            pair.connect(CmTestPair.serverAddress(device, false), fromClient, fromServer);
            CmId clientId = pair.clientConnection.id();
            CmId serverId = pair.serverConnection.id();
            assertEquals(device.name(), clientId.context().deviceName());
            assertEquals(TransportType.IWARP, clientId.context().transportType());
            assertArrayEquals(fromClient, pair.serverConnection.request().privateData());
            assertArrayEquals(fromServer, pair.clientConnection.established().privateData());

            // one byte more is refused before the call, by connect and by accept
            byte[] tooLong = new byte[PrivateDataLimits.IWARP + 1];
            assertThrows(
                    IllegalArgumentException.class,
                    () -> clientId.connect(ConnectionParameters.DEFAULTS.withPrivateData(tooLong)));
            assertThrows(
                    IllegalArgumentException.class,
                    () -> serverId.accept(ConnectionParameters.DEFAULTS.withPrivateData(tooLong)));

            QueuePair qp = pair.client.qp;
            assertFalse(qp.usesExtendedSendPath(), "siw has no extended QP: rdma_create_qp");
            var local = pair.client.mr;
            var remote = pair.server.mr;

            byte[] message = pattern(1500, 3);
            MemorySegment.copy(message, 0, local.segment(), ValueLayout.JAVA_BYTE, 0, message.length);
            pair.server.qp.postReceive(10, remote, 8192, 4096);
            qp.postSend(11, local, 0, message.length, SendFlags.SIGNALED);
            pair.expectSuccess(pair.client.cq, 11, WcOpcode.SEND);
            pair.expectSuccess(pair.server.cq, 10, WcOpcode.RECV);
            assertEquals(message.length, pair.wc.byteLength(0));
            assertArrayEquals(
                    message, remote.segment().asSlice(8192, message.length).toArray(ValueLayout.JAVA_BYTE));

            byte[] written = pattern(3000, 4);
            MemorySegment.copy(written, 0, local.segment(), ValueLayout.JAVA_BYTE, 0, written.length);
            qp.postWrite(12, local, 0, written.length, remote.address() + 16384, remote.rkey(), SendFlags.SIGNALED);
            pair.expectSuccess(pair.client.cq, 12, WcOpcode.RDMA_WRITE);
            Placement.assertPlaced(written, remote.segment().asSlice(16384), "written");

            byte[] read = pattern(2000, 5);
            MemorySegment.copy(read, 0, remote.segment(), ValueLayout.JAVA_BYTE, 32768, read.length);
            qp.postRead(13, local, 40960, read.length, remote.address() + 32768, remote.rkey(), SendFlags.SIGNALED);
            pair.expectSuccess(pair.client.cq, 13, WcOpcode.RDMA_READ);
            assertArrayEquals(read, local.segment().asSlice(40960, read.length).toArray(ValueLayout.JAVA_BYTE));

            String siw = qp.deviceName();
            assertRefused(
                    siw,
                    "FetchAdd",
                    () -> qp.postFetchAdd(20, local, 0, remote.address(), remote.rkey(), 1, SendFlags.SIGNALED));
            assertRefused(
                    siw,
                    "CompareSwap",
                    () -> qp.postCompareSwap(21, local, 0, remote.address(), remote.rkey(), 0, 1, SendFlags.SIGNALED));
            assertRefused(
                    siw,
                    "SEND with immediate",
                    () -> qp.postSendWithImmediate(22, local, 0, 8, 42, SendFlags.SIGNALED));
            // FLUSH: the library's reason where rdma-core lacks it (checked first), else siw's
            System.out.println("siw refuses FLUSH: "
                    + Expect.assertFlushRefused(
                                    siw,
                                    () -> qp.postFlush(
                                            23,
                                            remote.address(),
                                            remote.rkey(),
                                            64,
                                            FlushType.GLOBAL_VISIBILITY,
                                            FlushScope.RANGE,
                                            SendFlags.SIGNALED))
                            .getMessage());
            assertRefused(
                    siw,
                    "ATOMIC WRITE",
                    () -> qp.postAtomicWrite(24, remote.address(), remote.rkey(), 1, SendFlags.SIGNALED));
            // nothing was posted by the refused calls
            assertEquals(0, pair.client.cq.poll(pair.wc));

            System.out.println("siw disconnect: " + CmTestPair.disconnectBoth(serverId, clientId));
        }
    }

    @Test
    void connectsOverIpv6(RdmaTestDevice device) throws Exception {
        try (CmTestPair pair = new CmTestPair()) {
            InetSocketAddress address = CmTestPair.serverAddress(device, true);
            pair.connect(address, new byte[] {6}, new byte[] {7});
            assertArrayEquals(new byte[] {6}, pair.serverConnection.request().privateData());
            assertArrayEquals(
                    new byte[] {7}, pair.clientConnection.established().privateData());
            var local = pair.client.mr;
            var remote = pair.server.mr;
            local.segment().setString(0, "siw over IPv6");
            pair.server.qp.postReceive(1, remote, 0, 64);
            pair.client.qp.postSend(2, local, 0, 16, SendFlags.SIGNALED);
            pair.expectSuccess(pair.server.cq, 1, WcOpcode.RECV);
            assertEquals("siw over IPv6", remote.segment().getString(0));
        }
    }

    @Test
    void connectToAPortNobodyListensOnFails(RdmaTestDevice device) throws Exception {
        try (CmTestPair pair = new CmTestPair()) {
            InetSocketAddress address = CmTestPair.serverAddress(device, false);
            RdmaException e = assertThrows(
                    RdmaException.class,
                    () -> CmConnector.connect(
                            pair.clientChannel,
                            address,
                            ConnectionParameters.DEFAULTS,
                            pair.client,
                            CmTestPair.TIMEOUT));
            System.out.println("siw no listener: " + e);
            assertFalse(e instanceof CmTimeoutException, "the CM's reason, not our timeout: " + e);
        }
    }
}
