package org.panamardma.verbs.connection;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A slow and lossy testbed interface for the length of a test ({@code tc qdisc ... netem delay ... loss ...}): packets
 * wait before they leave, and some are lost and sent again, each time from wherever the transport keeps their data,
 * which shows whether that memory was still the request's when they left. Testbed interfaces only (10.77.x.x, inside
 * the VM); the test fails if the link cannot be set so, it never runs without it.
 */
final class ImpairedLink implements AutoCloseable {
    private final String netdev;

    private ImpairedLink(String netdev) {
        this.netdev = netdev;
    }

    /**
     * @param netdev the interface whose outgoing packets are held and lost
     * @param delayMillis how long each packet waits before it leaves
     * @param lossPercent the share lost
     */
    static ImpairedLink on(String netdev, int delayMillis, double lossPercent)
            throws IOException, InterruptedException {
        tc(List.of(
                "tc",
                "qdisc",
                "replace",
                "dev",
                netdev,
                "root",
                "netem",
                "delay",
                delayMillis + "ms",
                "loss",
                lossPercent + "%"));
        return new ImpairedLink(netdev);
    }

    private static void tc(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new AssertionError(
                    String.join(" ", command) + " failed (the testbed guest needs tc and sch_netem): " + out.strip());
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        tc(List.of("tc", "qdisc", "del", "dev", netdev, "root"));
    }
}
