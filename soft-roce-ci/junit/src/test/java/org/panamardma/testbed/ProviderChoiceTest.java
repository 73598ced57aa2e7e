package org.panamardma.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The order host, privileged container, VM, on a fake root file system. */
class ProviderChoiceTest {
    private static final String RELEASE = "6.8.0-1021-azure";

    @TempDir
    Path root;

    private TestbedDevices noDevices() {
        return TestbedDevices.load(root.resolve("absent.properties"), root.resolve("no-sysfs"));
    }

    private TestbedDevices oneRxe() throws IOException {
        Path dev = root.resolve("sys-ib/rxe0");
        Files.createDirectories(dev.resolve("ports/1"));
        Files.writeString(dev.resolve("node_type"), "1: CA\n");
        Files.writeString(dev.resolve("ports/1/link_layer"), "Ethernet\n");
        Files.writeString(dev.resolve("ports/1/state"), "4: ACTIVE\n");
        return TestbedDevices.load(root.resolve("absent.properties"), root.resolve("sys-ib"));
    }

    private void dockerSocket() throws IOException {
        Files.createDirectories(root.resolve("var/run"));
        Files.createFile(root.resolve("var/run/docker.sock"));
    }

    private void moduleOnDisk(String path) throws IOException {
        Path dep = root.resolve("lib/modules/" + RELEASE + "/modules.dep");
        Files.createDirectories(dep.getParent());
        Files.writeString(
                dep,
                path + ": kernel/drivers/infiniband/core/ib_core.ko.zst\n",
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
    }

    private ProviderChoice choose(TestbedDevices devices, String override) {
        return ProviderChoice.choose(override, devices, root, Map.<String, String>of()::get, RELEASE);
    }

    @Test
    void theHostsOwnDeviceComesFirst_evenWithDockerAndModules() throws IOException {
        dockerSocket();
        Files.createDirectories(root.resolve("sys/module/rdma_rxe"));
        Files.createDirectories(root.resolve("sys/module/siw"));
        ProviderChoice c = choose(oneRxe(), "");
        assertEquals(TestbedProvider.HOST, c.provider());
        assertTrue(c.reason().contains("rxe0"), c.reason());
    }

    @Test
    void dockerAndBothModulesLoadedOrOnDiskGiveTheContainer() throws IOException {
        dockerSocket();
        Files.createDirectories(root.resolve("sys/module/rdma_rxe"));
        moduleOnDisk("kernel/drivers/infiniband/sw/siw/siw.ko.zst");
        ProviderChoice c = choose(noDevices(), "");
        assertEquals(TestbedProvider.CONTAINER, c.provider(), c.reason());
        assertTrue(
                c.reason().contains("rdma_rxe loaded") && c.reason().contains("siw in /lib/modules/" + RELEASE),
                c.reason());
        assertEquals("testbed provider: container (" + c.reason() + ")", c.toString());
    }

    @Test
    void aMissingModuleOrNoDockerLeavesTheVm() throws IOException {
        Files.createDirectories(root.resolve("sys/module/rdma_rxe"));
        moduleOnDisk("kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko");
        ProviderChoice noDocker = choose(noDevices(), "");
        assertEquals(TestbedProvider.VM, noDocker.provider());
        assertTrue(
                noDocker.reason().contains("no Docker socket")
                        && noDocker.reason().contains("no siw"),
                noDocker.reason());

        dockerSocket();
        ProviderChoice noSiw = choose(noDevices(), "");
        assertEquals(TestbedProvider.VM, noSiw.provider());
        assertTrue(noSiw.reason().contains("the kernel has no siw"), noSiw.reason());
    }

    @Test
    void dockerHostNamesTheSocket() throws IOException {
        Files.createDirectories(root.resolve("run/user/1000"));
        Files.createFile(root.resolve("run/user/1000/docker.sock"));
        Files.createDirectories(root.resolve("sys/module/rdma_rxe"));
        Files.createDirectories(root.resolve("sys/module/siw"));
        ProviderChoice c = ProviderChoice.choose(
                "", noDevices(), root, Map.of("DOCKER_HOST", "unix:///run/user/1000/docker.sock")::get, RELEASE);
        assertEquals(TestbedProvider.CONTAINER, c.provider(), c.reason());
    }

    @Test
    void theOverrideWinsAndIsChecked() throws IOException {
        assertEquals(TestbedProvider.CONTAINER, choose(oneRxe(), "container").provider());
        assertEquals(TestbedProvider.VM, choose(oneRxe(), " VM ").provider());
        assertThrows(IllegalArgumentException.class, () -> choose(noDevices(), "docker"));
    }
}
