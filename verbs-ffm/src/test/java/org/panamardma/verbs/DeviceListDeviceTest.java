package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** The first test on a real device: libibverbs, called through FFM, lists the testbed's devices. */
class DeviceListDeviceTest {

    @Test
    @RdmaDeviceTest(transport = Transport.ROCE)
    void listsTheSoftRoceDeviceWithInfinibandTransport(RdmaTestDevice expected) throws RdmaException {
        List<Device> devices = Device.list();
        Device rxe = devices.stream()
                .filter(d -> d.name().equals(expected.name()))
                .findFirst()
                .orElseThrow(() -> new AssertionError(expected.name() + " not in " + devices));
        assertEquals(TransportType.INFINIBAND, rxe.transportType(), rxe.toString());
        assertEquals(NodeType.CA, rxe.nodeType(), rxe.toString());
        assertTrue(rxe.ibdevPath().endsWith("/" + expected.name()), rxe.ibdevPath());
    }

    @Test
    @RdmaDeviceTest(transport = Transport.IWARP)
    void listsTheSoftIwarpDeviceWithIwarpTransport(RdmaTestDevice expected) throws RdmaException {
        List<Device> devices = Device.list();
        Device siw = devices.stream()
                .filter(d -> d.name().equals(expected.name()))
                .findFirst()
                .orElseThrow(() -> new AssertionError(expected.name() + " not in " + devices));
        assertEquals(TransportType.IWARP, siw.transportType(), siw.toString());
        assertEquals(NodeType.RNIC, siw.nodeType(), siw.toString());
    }
}
