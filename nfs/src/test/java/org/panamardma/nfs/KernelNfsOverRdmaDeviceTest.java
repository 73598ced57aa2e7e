package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/**
 * The reference the Java RPC-over-RDMA client will be measured against: the guest's own kernel NFS client
 * (xprtrdma) mounts knfsd (svcrdma) over RDMA, port 20049, on rxe and on siw, and moves the test files through it.
 * If these pass and the Java client over RDMA fails, the fault is on the Java side. The mount goes from the test
 * device's address to its peer's (rxe0 to rxe1, siw0 to siw1), so the traffic crosses the veth wire.
 */
@Timeout(180)
class KernelNfsOverRdmaDeviceTest {
    private static final Pattern TROUBLE = Pattern.compile(
            "(?i)((nfs|svcrdma|rpcrdma|xprtrdma|sunrpc|rpc).*(error|fail|warn|refus|drop|timed out))|call trace|bug:|oops");

    @AfterAll
    static void stopServer() throws Exception {
        KnfsdServer.stop();
    }

    @Test
    @RdmaDeviceTest(transport = Transport.ROCE)
    void kernelClientMountsKnfsdOverSoftRoce(RdmaTestDevice device) throws Exception {
        mountReadWriteList(device);
    }

    @Test
    @RdmaDeviceTest(transport = Transport.IWARP)
    void kernelClientMountsKnfsdOverSoftIwarp(RdmaTestDevice device) throws Exception {
        mountReadWriteList(device);
    }

    private static void mountReadWriteList(RdmaTestDevice device) throws Exception {
        KnfsdServer server = KnfsdServer.start();
        assertEquals("ok", server.rdmaListener);
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer"));
        String address = peer.ipv4().orElseThrow().getHostAddress();
        int logBefore = KnfsdServer.kernelLog().size();
        Path mnt = Files.createDirectories(Path.of("/mnt/panama-nfs-" + device.name()));
        KnfsdServer.run(List.of("modprobe", "nfsv3"), 60);
        KnfsdServer.run(
                List.of(
                        "mount",
                        "-t",
                        "nfs",
                        "-o",
                        "rdma,port=" + Nfs3.RDMA_PORT + ",vers=3,nolock",
                        address + ":" + server.export,
                        mnt.toString()),
                120);
        try {
            String mounts = Files.readString(Path.of("/proc/mounts"));
            String line = mounts.lines()
                    .filter(l -> l.contains(" " + mnt + " "))
                    .findFirst()
                    .orElseThrow();
            System.out.println(device + ": " + line);
            assertTrue(line.contains("proto=rdma") && line.contains("port=20049"), line);
            String connection = KnfsdServer.run(List.of("rdma", "resource", "show", "cm_id"), 30)
                    .lines()
                    .filter(l -> l.contains("CONNECT") && l.contains(address + ":20049"))
                    .findFirst()
                    .orElse("");
            System.out.println("  connection: " + connection);
            assertTrue(connection.startsWith("link " + device.name() + "/"), "the kernel client uses " + device.name());

            byte[] pattern = Files.readAllBytes(mnt.resolve(KnfsdServer.PATTERN_FILE));
            assertEquals(KnfsdServer.PATTERN_SIZE, pattern.length);
            for (int i = 0; i < pattern.length; i++) {
                if (pattern[i] != KnfsdServer.patternByte(i)) {
                    throw new AssertionError("byte " + i + " read over NFS/RDMA is " + pattern[i]);
                }
            }
            byte[] data = new byte[1 << 20];
            new Random(device.name().hashCode()).nextBytes(data);
            Files.write(mnt.resolve(KnfsdServer.WRITE_TARGET), data); // closing flushes (NFS close-to-open)
            assertArrayEquals(data, Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET)));
            try (Stream<Path> entries = Files.list(mnt.resolve(KnfsdServer.BIG_DIRECTORY))) {
                assertEquals(KnfsdServer.BIG_DIRECTORY_ENTRIES, entries.count());
            }
        } finally {
            KnfsdServer.run(List.of("umount", mnt.toString()), 120);
        }
        List<String> log = KnfsdServer.kernelLog();
        List<String> trouble = log.subList(Math.min(logBefore, log.size()), log.size()).stream()
                .filter(l -> TROUBLE.matcher(l).find())
                .toList();
        assertTrue(trouble.isEmpty(), "kernel log: " + trouble);
    }
}
