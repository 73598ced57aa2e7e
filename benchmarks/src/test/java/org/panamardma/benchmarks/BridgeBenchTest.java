package org.panamardma.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * BridgeBench's TCP half on loopback (the RDMA half needs a device: it runs in the testbed, perftest-compare.sh):
 * both TCP clients against oncrpc4j's server, the CSV lines compare-in-guest.sh collects, every call counted once.
 */
class BridgeBenchTest {
    @Test
    void bothTcpClientsMeasureTheSameCallsOnOneServiceInstance() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int iters = 20, warmup = 5, ioIters = 4, ioSize = (256 << 10) + 3; // XDR padding on the way
        BlobService service;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            service = BridgeBench.run(out, "127.0.0.1", 0, List.of("tcp4j", "tcp"), iters, warmup, ioIters, ioSize);
        }
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(
                List.of(
                        "BRIDGE-TCP4J,bridge_null",
                        "BRIDGE-TCP,bridge_null",
                        "BRIDGE-TCP4J,bridge_get",
                        "BRIDGE-TCP,bridge_get",
                        "BRIDGE-TCP4J,bridge_put",
                        "BRIDGE-TCP,bridge_put"),
                lines.stream()
                        .map(l -> l.substring(0, l.indexOf(',', l.indexOf(',') + 1)))
                        .toList());
        for (String l : lines) {
            String[] f = l.split(",", -1);
            assertEquals(8, f.length, l);
            if (f[1].equals("bridge_null")) {
                assertEquals("20", f[3]);
                assertTrue(Double.parseDouble(f[4]) > 0 && Double.parseDouble(f[5]) >= Double.parseDouble(f[4]), l);
            } else {
                assertEquals(List.of(Integer.toString(ioSize), "4"), List.of(f[2], f[3]), l);
                assertTrue(Double.parseDouble(f[7]) > 0, l);
            }
        }
        int ioWarmup = 2; // max(2, 4 / 4)
        assertEquals(
                2L * (warmup + iters) + 2L * 2 * (ioWarmup + ioIters),
                service.calls.get(),
                "every call ran once, on the one instance");
    }

    @Test
    void thePatternAndItsDigestNoticeAWrongByte() {
        byte[] b = BlobService.pattern(10_000);
        assertTrue(BlobService.isPattern(b));
        int digest = BlobService.sample(b);
        b[4093] ^= 1;
        assertFalse(BlobService.isPattern(b));
        assertTrue(digest != BlobService.sample(b));
        assertTrue(BlobService.isPattern(new byte[0]));
    }
}
