package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * Issue 26: the Java NFS server at rest costs next to no CPU. The server runs as a process of its own (as
 * {@code nfs-server.jar} does), the kernel client mounts it over RDMA, writes and reads a file, and then leaves the
 * mount idle: over {@link #WINDOW_SECONDS} s the server's process may use at most {@link #MAX_CPU_PERCENT}% of one
 * CPU (its CPU time from {@code /proc}, which counts in the guest's own time and so does not grow when the host is
 * loaded). Before the fix the idle server took 20-63% of a CPU in the emulated guest (its carriers spinning in
 * the virtual-thread scheduler, woken by the server's timers on virtual threads).
 *
 * <p>The hostile half: rest must not come from a server that stopped serving. After the idle window the same mount
 * reads the file back at once, byte for byte, and the server's log holds no WARN or ERROR.
 */
@Timeout(900)
abstract class IdleServerCpuDeviceTests {
    /** How long the mount stays idle while the server's CPU is counted. */
    static final int WINDOW_SECONDS = Integer.getInteger("panama.nfs.idleSeconds", 20);
    /**
     * The most CPU the idle server may use, in percent of one CPU over the window. Measured by this test in the
     * emulated guest (2026-11-26, Debian 13, one boot): 19.7% on rxe before the fix (its carriers' spin; 30-63% with
     * the jar's default JVM options, C2 included), 4.2% on rxe and 5.7% on siw after it, nearly all of that the
     * connection's completion poller and the listeners' event loops waking every 50 ms on their platform threads.
     * The bound sits a factor of about 2 from both: a guest on a loaded host counts more CPU per wake-up (its
     * virtual CPUs stall mid-work), and the verdict must not depend on that.
     */
    static final int MAX_CPU_PERCENT = 10;
    /** How long after the traffic the count starts: the last call's threads and compilations have settled. */
    private static final int SETTLE_SECONDS = 10;

    /** TCP port of NFS; MOUNT is one below, RPC-over-RDMA one above. */
    abstract int portBase();

    @Test
    void idleServerWithOneMountUsesAlmostNoCpu(RdmaTestDevice device) throws Exception {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer"));
        Path src = Path.of("/tmp/idle-cpu-src-" + device.name());
        Path back = Path.of("/tmp/idle-cpu-back-" + device.name());
        KernelClientJavaServerDeviceTests.sh("head -c 1048576 /dev/urandom >" + src);
        String expected = KernelClientJavaServerDeviceTests.sha256(src);
        try (JavaNfsServerProcess server = new JavaNfsServerProcess(
                "idle-" + device.name(),
                peer.ipv4().orElseThrow().getHostAddress(),
                portBase(),
                portBase() - 1,
                portBase() + 1)) {
            server.start();
            Path mnt = KernelClientJavaServerDeviceTests.mount(server, "rdma");
            try {
                Path file = mnt.resolve("f");
                // the server at rest after work: its connection, pools and threads made, its code compiled
                KernelClientJavaServerDeviceTests.sh("dd if=" + src + " of=" + file + " bs=256k oflag=direct"
                        + " && dd if=" + file + " of=" + back + " bs=256k iflag=direct");
                assertEquals(expected, KernelClientJavaServerDeviceTests.sha256(back), "the file through the mount");
                TimeUnit.SECONDS.sleep(SETTLE_SECONDS);

                ProcessCpu before = ProcessCpu.of(server.pid());
                TimeUnit.SECONDS.sleep(WINDOW_SECONDS);
                ProcessCpu after = ProcessCpu.of(server.pid());
                long millis = after.millisSince(before);
                String figure = device.name() + ": the idle server used " + millis + " ms of CPU in " + WINDOW_SECONDS
                        + " s (" + (millis / (10.0 * WINDOW_SECONDS)) + "% of a CPU); busiest threads: "
                        + after.busiestSince(before);
                System.out.println(figure);

                // still served, at once: the mount's next read goes to the server (direct I/O, no page cache)
                KernelClientJavaServerDeviceTests.sh(
                        "rm -f " + back + " && dd if=" + file + " of=" + back + " bs=256k iflag=direct");
                assertEquals(expected, KernelClientJavaServerDeviceTests.sha256(back), "the file after the rest");
                assertTrue(millis <= MAX_CPU_PERCENT * 10L * WINDOW_SECONDS, figure);
            } finally {
                KernelClientJavaServerDeviceTests.umount(mnt);
            }
            assertEquals(List.of(), server.problems(), "WARN or ERROR lines in the server's log");
        }
    }
}
