package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.panamardma.nfs.server.NfsServer;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * The Linux kernel's NFS client against the Java NFS server's export options (issue 25, items 1 and 2), over
 * {@code proto=rdma} with MOUNT over TCP: the client list is matched against the RDMA connection's peer address
 * (every test lists the client's own address, so a server that did not know it would refuse every call), a
 * squashed root and a shared anonymous identity make no set-id file, a user's files are the user's, an address
 * not listed cannot mount, a read-only client cannot write. On 5c5f9a1 none of these options existed.
 */
@Timeout(600)
abstract class KernelClientExportOptionsDeviceTests {
    /** TCP port of NFS for the first test; MOUNT is one below, RPC-over-RDMA one above; each test its own. */
    abstract int portBase();

    private static String run(String... command) throws IOException, InterruptedException {
        return KnfsdServer.run(List.of(command), 300);
    }

    private static String clientAddress(RdmaTestDevice device) {
        return device.ipv4().orElseThrow().getHostAddress();
    }

    private JavaNfsServerInProcess server(RdmaTestDevice device, int test, Consumer<NfsServer.Builder> settings)
            throws IOException, InterruptedException {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer"));
        int base = portBase() + 3 * test; // siw: a fresh RDMA CM port per test (testbed NOTES)
        return new JavaNfsServerInProcess(
                device.name() + "-opts" + test,
                peer.ipv4().orElseThrow().getHostAddress(),
                base,
                base - 1,
                base + 1,
                settings);
    }

    private static int mode(Path p) throws IOException {
        return (int) Files.getAttribute(p, "unix:mode") & 07777;
    }

    private static int uid(Path p) throws IOException {
        return (int) Files.getAttribute(p, "unix:uid");
    }

    @Test
    void rootIsSquashedAUserIsItselfAndTheAnonymousUserMakesNoSetIdFile(RdmaTestDevice device) throws Exception {
        try (JavaNfsServerInProcess server = server(device, 0, b -> b.allow(clientAddress(device) + "/32"))) {
            server.start();
            Path mnt = KernelClientJavaServerDeviceTests.mount(server, "rdma");
            try {
                // root on the client: squashed to 65534; its set-id request dropped (a shared identity)
                run("install", "-m", "6755", "/dev/null", mnt.resolve("by-root").toString());
                // user 1000 on the client: its own file, set-id bits of its own allowed
                run(
                        "setpriv",
                        "--reuid=1000",
                        "--regid=1000",
                        "--clear-groups",
                        "install",
                        "-m",
                        "4755",
                        "/dev/null",
                        mnt.resolve("by-user").toString());
            } finally {
                KernelClientJavaServerDeviceTests.umount(mnt);
            }
            Path export = server.export();
            assertEquals(65534, uid(export.resolve("by-root")), "root squashed");
            assertEquals(0755, mode(export.resolve("by-root")), "no set-id bit for the anonymous user");
            assertEquals(1000, uid(export.resolve("by-user")));
            assertEquals(04755, mode(export.resolve("by-user")), "a user's own set-uid file");
            server.close();
            assertEquals(List.of(), server.problems(), "WARN/ERROR in the server's log");
        }
    }

    @Test
    void anAddressNotListedCannotMount(RdmaTestDevice device) throws Exception {
        try (JavaNfsServerInProcess server = server(device, 1, b -> b.allow("192.0.2.0/24"))) {
            server.start();
            IOException refused =
                    assertThrows(IOException.class, () -> KernelClientJavaServerDeviceTests.mount(server, "rdma"));
            System.out.println("mount refused: " + refused.getMessage());
            assertTrue(refused.getMessage().contains("access denied"), refused.getMessage());
            server.close();
            List<String> problems = server.problems();
            assertTrue(
                    !problems.isEmpty()
                            && problems.stream()
                                    .allMatch(p -> p.contains("refused MNT") && p.contains(clientAddress(device))),
                    "the refusal is logged, nothing else: " + problems);
        }
    }

    @Test
    void aReadOnlyClientReadsButCannotWrite(RdmaTestDevice device) throws Exception {
        try (JavaNfsServerInProcess server = server(device, 2, b -> b.allow(clientAddress(device) + "/32(ro)"))) {
            Files.writeString(server.export().resolve("kept"), "kept\n");
            server.start();
            Path mnt = KernelClientJavaServerDeviceTests.mount(server, "rdma");
            try {
                assertEquals("kept\n", run("cat", mnt.resolve("kept").toString()));
                IOException denied = assertThrows(
                        IOException.class, () -> run("touch", mnt.resolve("new").toString()));
                assertTrue(denied.getMessage().contains("Read-only file system"), denied.getMessage());
                assertThrows(
                        IOException.class,
                        () -> run("rm", "-f", mnt.resolve("kept").toString()));
            } finally {
                KernelClientJavaServerDeviceTests.umount(mnt);
            }
            assertTrue(Files.exists(server.export().resolve("kept"))
                    && !Files.exists(server.export().resolve("new")));
            server.close();
            assertEquals(List.of(), server.problems(), "WARN/ERROR in the server's log");
        }
    }
}
