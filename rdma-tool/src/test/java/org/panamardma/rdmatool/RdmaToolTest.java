package org.panamardma.rdmatool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Argument parsing, usage errors and the figures' arithmetic: no device needed. */
class RdmaToolTest {
    record Run(int rc, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = RdmaTool.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static void usageError(String expectedMessage, String... args) {
        Run r = run(args);
        assertEquals(2, r.rc(), "exit code of " + List.of(args) + ": " + r);
        assertTrue(r.err().contains(expectedMessage), "error of " + List.of(args) + " was: " + r.err());
    }

    @Test
    void helpListsEveryCommand() {
        Run r = run("help");
        assertEquals(0, r.rc());
        for (String c : List.of("devinfo", "ping", "perf", "demo", "send_lat", "write_bw", "--all-sizes", "--csv")) {
            assertTrue(r.out().contains(c), c + " missing from help: " + r.out());
        }
        assertEquals(r.out(), run().out(), "no arguments prints the help too");
    }

    @Test
    void badInputIsAUsageErrorNamingTheCulprit() {
        usageError("unknown command 'pong'", "pong");
        usageError("ping: give the server's address", "ping");
        usageError("ping: --count must be between 1 and 1000000, not 0", "ping", "10.0.0.1", "--count", "0");
        usageError("ping: --size needs a whole number, not 'big'", "ping", "10.0.0.1", "--size", "big");
        usageError("ping: --size must be between 1 and 65536, not 65537", "ping", "10.0.0.1", "--size", "65537");
        usageError("ping: option --port needs a value", "ping", "10.0.0.1", "--port");
        usageError("ping: unknown option --sise", "ping", "10.0.0.1", "--sise", "8");
        usageError("options are spelt --name", "ping", "10.0.0.1", "-c", "3");
        usageError("ping: --size is the client's choice", "ping", "--server", "--size", "8");
        usageError("ping: --bind is for the server", "ping", "10.0.0.1", "--bind", "10.0.0.2");
        usageError("ping: unexpected argument '10.0.0.2'", "ping", "10.0.0.1", "10.0.0.2");
        usageError("perf: unknown test 'bw'", "perf", "10.0.0.1", "--test", "bw");
        usageError("perf: --size and --all-sizes exclude each other", "perf", "10.0.0.1", "--size", "8", "--all-sizes");
        usageError("atomic_lat moves 8 bytes", "perf", "10.0.0.1", "--test", "atomic_lat", "--size", "16");
        usageError("perf: --iters must be between 2", "perf", "10.0.0.1", "--iters", "1");
        usageError("perf: option --test given twice", "perf", "10.0.0.1", "--test", "send_lat", "--test=read_lat");
        usageError("demo: --clients must be between 2 and 64", "demo", "--clients", "1");
        usageError("devinfo: unexpected argument 'rxe0'", "devinfo", "rxe0");
    }

    @Test
    void sizesAcceptSuffixesAndEqualsForm() throws UsageException {
        Args a = Args.parse(
                "perf", new String[] {"--size=64k", "--iters", "2K", "x"}, Set.of("size", "iters"), Set.of());
        assertEquals(65536, a.integer("size", 0, 1, 65536));
        assertEquals(2048, a.integer("iters", 0, 1, 1 << 20));
        assertEquals(List.of("x"), a.positional());
        assertThrows(
                UsageException.class, () -> Args.parse("perf", new String[] {"--csv=yes"}, Set.of(), Set.of("csv")));
    }

    @Test
    void allSizesArePowersOfTwoFrom8BytesTo64KiB() {
        List<Integer> all = Perf.sizes(Perf.Test.WRITE_LAT, true, 0);
        assertEquals(14, all.size());
        assertEquals(8, all.get(0));
        assertEquals(65536, all.get(all.size() - 1));
        assertEquals(List.of(8), Perf.sizes(Perf.Test.ATOMIC_LAT, true, 0), "atomics are 8 bytes");
        assertEquals(List.of(100), Perf.sizes(Perf.Test.SEND_LAT, false, 100));
    }

    @Test
    void statisticsFollowPerftestsDefinitions() {
        // perftest's get_median: the mean of the two middle samples for an even count; divided by rtt_factor
        long[] nanos = {4000, 1000, 3000, 2000};
        LatencyStats s = LatencyStats.of(nanos, 4, 2);
        assertEquals(0.5, s.minUs(), 1e-9);
        assertEquals(1.25, s.p50Us(), 1e-9);
        assertEquals(1.25, s.avgUs(), 1e-9);
        assertEquals(2.0, s.p99Us(), 1e-9, "nearest rank of 4 samples is the largest");
        assertEquals(2.0, s.maxUs(), 1e-9);
        long[] many = new long[1000];
        for (int i = 0; i < many.length; i++) {
            many[i] = (i + 1) * 1000L;
        }
        LatencyStats m = LatencyStats.of(many, 999, 1);
        assertEquals(500.0, m.p50Us(), 1e-9, "odd count: the middle sample");
        assertEquals(990.0, m.p99Us(), 1e-9, "ceil(0.99 * 999) = 990th sample");
        assertTrue(m.p50Us() <= m.p99Us() && m.p99Us() <= m.maxUs());
    }

    @Test
    void csvLineHasTheAgreedColumns() {
        Perf.Result lat =
                new Perf.Result(Perf.Test.WRITE_LAT, 64, 1000, new LatencyStats(999, 1, 2.5, 2, 7.25, 9), 24.41, 0);
        assertEquals("write_lat,64,1000,2.000,7.250,2.500,24.410000", lat.csv());
        Perf.Result bw = new Perf.Result(Perf.Test.WRITE_BW, 65536, 5000, null, 1024.0, 0.016384);
        String[] f = bw.csv().split(",", -1);
        assertEquals(7, f.length, bw.csv());
        assertEquals(7, Perf.CSV_HEADER.split(",").length);
        assertEquals("", f[3]);
        assertEquals("1024.000000", f[6]);
    }

    @Test
    void requestRoundTripsThroughPrivateDataAndStrangersAreRecognised() {
        PerfRequest r = new PerfRequest(Perf.Test.READ_LAT, 1000, 8, 65536, true, 0x7f0012345000L, 0x1234, 512);
        byte[] wire = r.encode();
        assertTrue(wire.length <= 56, "fits RoCE's connect private data");
        byte[] padded = java.util.Arrays.copyOf(wire, 56); // RoCE pads private data with zeros
        assertEquals(r, PerfRequest.decode(padded));
        assertNull(PerfRequest.decode(new byte[56]));
        assertNull(PerfRequest.decode(new byte[3]));
        assertEquals(0, Perf.warmupIterations(0));
        assertEquals(256, Perf.warmupIterations(1));
        assertEquals(1024, Perf.warmupIterations(1000));
    }

    @Test
    void pingPatternDiffersPerPingAndMismatchesAreLocated() {
        byte[] data = new byte[300];
        for (int j = 0; j < data.length; j++) {
            data[j] = Ping.pattern(7, j);
        }
        assertEquals(-1, Ping.firstMismatch(data, 300, 7, 300));
        assertTrue(Ping.firstMismatch(data, 300, 8, 300) >= 0, "another ping's pattern differs");
        data[257] ^= 1;
        assertEquals(257, Ping.firstMismatch(data, 300, 7, 300));
        assertEquals(200, Ping.firstMismatch(data, 200, 7, 300), "a short echo is a mismatch at its end");
    }
}
