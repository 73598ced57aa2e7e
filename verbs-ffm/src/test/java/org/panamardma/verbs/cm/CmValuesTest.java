package org.panamardma.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.TransportType;
import org.panamardma.verbs.ffi.rdma_cma_h;
import org.panamardma.verbs.ffi.sockaddr_storage;

/** The rdma_cm value types and the socket-address encoding, without a device. */
class CmValuesTest {
    @Test
    void eventTypesMapToTheirCValuesAndNames() {
        for (CmEventType t : CmEventType.values()) {
            assertEquals(t, CmEventType.of(t.value()));
            assertEquals("RDMA_CM_EVENT_" + t.name(), t.cName());
        }
        assertEquals(rdma_cma_h.RDMA_CM_EVENT_TIMEWAIT_EXIT, CmEventType.TIMEWAIT_EXIT.value());
        assertThrows(IllegalArgumentException.class, () -> CmEventType.of(99));
    }

    @Test
    void connectionParametersValidateAndCopyTheirPrivateData() {
        byte[] data = {1, 2, 3};
        ConnectionParameters p = ConnectionParameters.DEFAULTS.withPrivateData(data);
        data[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, p.privateData());
        p.privateData()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, p.privateData());
        assertEquals(p, ConnectionParameters.DEFAULTS.withPrivateData(new byte[] {1, 2, 3}));
        assertEquals(255, ConnectionParameters.DEFAULTS.responderResources());
        assertThrows(IllegalArgumentException.class, () -> ConnectionParameters.DEFAULTS.withRetries(8, 7));
        assertThrows(IllegalArgumentException.class, () -> ConnectionParameters.DEFAULTS.withResources(256, 1));
        assertThrows(
                IllegalArgumentException.class, () -> ConnectionParameters.DEFAULTS.withPrivateData(new byte[256]));
    }

    @Test
    void privateDataLimitsByTransport() {
        assertEquals(56, PrivateDataLimits.limit(TransportType.INFINIBAND, PrivateDataLimits.Operation.CONNECT));
        assertEquals(196, PrivateDataLimits.limit(TransportType.INFINIBAND, PrivateDataLimits.Operation.ACCEPT));
        assertEquals(148, PrivateDataLimits.limit(TransportType.INFINIBAND, PrivateDataLimits.Operation.REJECT));
        assertEquals(251, PrivateDataLimits.limit(TransportType.IWARP, PrivateDataLimits.Operation.ACCEPT));
        PrivateDataLimits.check(TransportType.INFINIBAND, "rxe0", PrivateDataLimits.Operation.CONNECT, 56);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> PrivateDataLimits.check(
                        TransportType.INFINIBAND, "rxe0", PrivateDataLimits.Operation.CONNECT, 57));
        assertTrue(e.getMessage().contains("rxe0") && e.getMessage().contains("56"), e.getMessage());
    }

    @Test
    void socketAddressesRoundTripInNetworkByteOrder() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress v4 = new InetSocketAddress(InetAddress.getByName("10.77.0.2"), 20049);
            MemorySegment s = SocketAddresses.write(arena, v4);
            assertEquals(sockaddr_storage.layout().byteSize(), s.byteSize());
            assertEquals(2, s.get(ValueLayout.JAVA_SHORT, 0), "AF_INET");
            assertEquals((byte) 0x4E, s.get(ValueLayout.JAVA_BYTE, 2), "port high byte first");
            assertEquals((byte) 0x51, s.get(ValueLayout.JAVA_BYTE, 3));
            assertEquals(10, s.get(ValueLayout.JAVA_BYTE, 4));
            assertEquals(v4, SocketAddresses.read(s));

            InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("fd77:1::2"), 40000);
            MemorySegment s6 = SocketAddresses.write(arena, v6);
            assertEquals(10, s6.get(ValueLayout.JAVA_SHORT, 0), "AF_INET6");
            assertEquals((byte) 0xfd, s6.get(ValueLayout.JAVA_BYTE, 8), "sin6_addr at offset 8");
            assertEquals(v6, SocketAddresses.read(s6));

            assertThrows(
                    IllegalArgumentException.class,
                    () -> SocketAddresses.write(arena, InetSocketAddress.createUnresolved("example.org", 1)));
            assertEquals(null, SocketAddresses.read(arena.allocate(sockaddr_storage.layout())));
        }
    }
}
