package org.panamardma.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /**
     * Which processes hold a device's verbs file open (each such file may carry one {@code ctx}), for a leak check's
     * failure message: the counts above are device-wide and name no owner. Reads /proc/PID/fd, so it sees only what
     * this process may read (all of it as root, as the device tests run).
     *
     * @param device the device's name (rxe0, siw0, ...)
     * @return e.g. {@code "uverbs1 (rxe1) open in: pid 812 java (2 fds)"}, or what could not be read
     */
    public static String holders(String device) {
        StringBuilder out = new StringBuilder();
        try (DirectoryStream<Path> verbs =
                Files.newDirectoryStream(Path.of("/sys/class/infiniband_verbs"), "uverbs*")) {
            for (Path v : verbs) {
                String ibdev = Files.readAllLines(v.resolve("ibdev")).getFirst().strip();
                if (!ibdev.equals(device)) {
                    continue;
                }
                String node = "/dev/infiniband/" + v.getFileName();
                out.append(v.getFileName()).append(" (").append(device).append(") open in:");
                int found = 0;
                try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
                    for (Path proc : procs) {
                        int fds = 0;
                        try (DirectoryStream<Path> fdDir = Files.newDirectoryStream(proc.resolve("fd"))) {
                            for (Path fd : fdDir) {
                                try {
                                    if (Files.readSymbolicLink(fd).toString().equals(node)) {
                                        fds++;
                                    }
                                } catch (IOException gone) {
                                    // the descriptor closed while we looked
                                }
                            }
                        } catch (IOException gone) {
                            continue; // the process ended, or is not ours to read
                        }
                        if (fds > 0) {
                            String comm;
                            try {
                                comm = Files.readAllLines(proc.resolve("comm"))
                                        .getFirst()
                                        .strip();
                            } catch (IOException | RuntimeException e) {
                                comm = "?";
                            }
                            out.append(" pid ")
                                    .append(proc.getFileName())
                                    .append(' ')
                                    .append(comm)
                                    .append(" (")
                                    .append(fds)
                                    .append(fds == 1 ? " fd);" : " fds);");
                            found++;
                        }
                    }
                }
                if (found == 0) {
                    out.append(" no process (a context the kernel has not yet released)");
                }
            }
        } catch (IOException | RuntimeException e) {
            out.append("holders of ")
                    .append(device)
                    .append("'s verbs file not readable: ")
                    .append(e);
        }
        return out.isEmpty() ? "no verbs file for " + device : out.toString();
    }
}
