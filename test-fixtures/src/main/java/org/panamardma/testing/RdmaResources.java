package org.panamardma.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's count of a device's RDMA resources, as {@code rdma resource show} (iproute2) prints them: the leak
 * checks of the device tests compare it before and after. The kernel keeps these counts per device in its restrack
 * (drivers/infiniband/core/restrack.c), so they see what a process left behind even after it exited.
 */
public final class RdmaResources {
    /** {@code rdma} answers at once; a minute covers an emulated guest under load. */
    private static final long TIMEOUT_SECONDS = 60;

    private RdmaResources() {}

    /**
     * Reads the counts of one device.
     *
     * @param device the device's name (rxe0, siw0, ...)
     * @return the counts by kind (pd, cq, qp, cm_id, mr, ctx, ...), sorted by kind
     * @throws IOException when {@code rdma} cannot be run, does not end within a minute, or prints no line for
     *     {@code device}
     * @throws InterruptedException when interrupted while waiting for {@code rdma}
     */
    public static Map<String, Integer> of(String device) throws IOException, InterruptedException {
        Process proc = new ProcessBuilder("rdma", "resource", "show")
                .redirectErrorStream(true)
                .start();
        String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!proc.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            proc.destroyForcibly();
            throw new IOException("rdma resource show did not end within " + TIMEOUT_SECONDS + " s");
        }
        // each line: "<index>: <device>: pd 3 cq 4 qp 2 cm_id 1 mr 5 ctx 1 srq 0"
        for (String line : out.split("\n")) {
            String[] t = line.trim().split("\\s+");
            if (t.length > 2 && t[1].equals(device + ":")) {
                Map<String, Integer> counts = new TreeMap<>();
                for (int i = 2; i + 1 < t.length; i += 2) {
                    counts.put(t[i], Integer.parseInt(t[i + 1]));
                }
                return counts;
            }
        }
        throw new IOException("no line for " + device + " in: " + out);
    }
}
