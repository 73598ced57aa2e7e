package org.panamardma.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestbedDevicesTest {
    @TempDir
    Path tmp;

    private Path sysfsDevice(String name, String nodeType, String linkLayer, String state, String netdev)
            throws IOException {
        Path dev = tmp.resolve("sys").resolve(name);
        Files.createDirectories(dev.resolve("ports/1/gid_attrs/ndevs"));
        Files.writeString(dev.resolve("node_type"), nodeType + "\n");
        Files.writeString(dev.resolve("ports/1/link_layer"), linkLayer + "\n");
        Files.writeString(dev.resolve("ports/1/state"), state + "\n");
        Files.writeString(dev.resolve("ports/1/gid_attrs/ndevs/0"), netdev + "\n");
        return dev;
    }

    @Test
    void descriptorGivesAddressesPeersAndPmem_andDropsInactiveDevices() throws IOException {
        sysfsDevice("rxe0", "1: CA", "Ethernet", "4: ACTIVE", "veth0");
        sysfsDevice("rxe1", "1: CA", "Ethernet", "4: ACTIVE", "veth1");
        sysfsDevice("siw0", "4: RNIC", "Ethernet", "1: DOWN", "veth2");
        Path descriptor = tmp.resolve("devices.properties");
        Files.writeString(descriptor, """
                device.rxe1.transport=ROCE
                device.rxe1.netdev=veth1
                device.rxe1.ipv4=10.77.0.2
                device.rxe1.peer=rxe0
                device.rxe0.transport=ROCE
                device.rxe0.netdev=veth0
                device.rxe0.ipv4=10.77.0.1
                device.rxe0.ipv6=fd77:0::1
                device.rxe0.peer=rxe1
                device.siw0.transport=IWARP
                device.siw0.netdev=veth2
                pmem.device=/dev/dax0.0
                pmem.size=534773760
                pmem.align=2097152
                """);

        TestbedDevices devices = TestbedDevices.load(descriptor, tmp.resolve("sys"));

        RdmaTestDevice roce = devices.find(Transport.ROCE).orElseThrow();
        assertEquals("rxe0", roce.name(), "device 0 is the client side");
        assertEquals("10.77.0.1", roce.ipv4().orElseThrow().getHostAddress());
        assertEquals("fd77:0:0:0:0:0:0:1", roce.ipv6().orElseThrow().getHostAddress());
        assertEquals("rxe1", roce.peerName().orElseThrow());
        assertTrue(devices.find(Transport.IWARP).isEmpty(), "siw0 is DOWN and must not be offered");
        assertTrue(devices.describe().contains("siw0 (1: DOWN)"), devices.describe());
        assertEquals(534773760L, devices.pmem().orElseThrow().size());
        assertEquals(Path.of("/dev/dax0.0"), devices.pmem().orElseThrow().path());
    }

    @Test
    void sysfsDiscoveryTellsIwarpFromRoceByNodeTypeAndLinkLayer() throws IOException {
        sysfsDevice("mlx5_0", "1: CA", "InfiniBand", "4: ACTIVE", "");
        sysfsDevice("rxe0", "1: CA", "Ethernet", "4: ACTIVE", "no-such-netdev");
        sysfsDevice("siw0", "4: RNIC", "Ethernet", "4: ACTIVE", "no-such-netdev");

        TestbedDevices devices = TestbedDevices.load(tmp.resolve("absent.properties"), tmp.resolve("sys"));

        assertEquals("rxe0", devices.find(Transport.ROCE).orElseThrow().name());
        assertEquals("siw0", devices.find(Transport.IWARP).orElseThrow().name());
        assertEquals("mlx5_0", devices.find(Transport.INFINIBAND).orElseThrow().name());
        assertEquals(3, devices.devices().size());
    }

    @Test
    void noSysfsMeansNoDevices() {
        TestbedDevices devices = TestbedDevices.load(tmp.resolve("absent"), tmp.resolve("no-sysfs"));
        assertTrue(devices.devices().isEmpty());
        assertTrue(devices.find(Transport.ANY).isEmpty());
    }
}
