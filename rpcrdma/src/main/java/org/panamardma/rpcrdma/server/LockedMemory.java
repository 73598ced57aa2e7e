package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the process may register (RLIMIT_MEMLOCK), checked against what a server may come to register. */
final class LockedMemory {
    private static final Logger LOG = LoggerFactory.getLogger(LockedMemory.class);

    private LockedMemory() {}

    /** Warns, saying {@code what}, when the process may lock less than {@code bytes}. */
    static void warnIfBelow(long bytes, Supplier<String> what) {
        long memlock = limit();
        if (memlock < bytes) {
            LOG.warn("the process may lock " + memlock + " bytes (RLIMIT_MEMLOCK); " + what.get());
        }
    }

    /**
     * How much memory this process may register: its soft RLIMIT_MEMLOCK, from /proc/self/limits ("Max locked
     * memory"); Long.MAX_VALUE when unlimited, unknown, or when the process has CAP_IPC_LOCK (bit 14 of CapEff in
     * /proc/self/status), which exempts it from the limit (root, usually).
     */
    static long limit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("CapEff:")) {
                    long caps = Long.parseUnsignedLong(
                            line.substring("CapEff:".length()).trim(), 16);
                    if ((caps & (1L << 14)) != 0) {
                        return Long.MAX_VALUE;
                    }
                }
            }
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max locked memory")) {
                    String soft =
                            line.substring("Max locked memory".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: nothing to check against
        }
        return Long.MAX_VALUE;
    }
}
