package org.panamardma.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link JitWatch} counts this JVM's compilations (code made hot shows), and its warm-up stops on the third quiet
 * pass, or at its limit saying it was not quiet.
 */
class JitWatchTest {
    /** Code nothing else runs: its compilations are this test's. */
    private static long hot(long x) {
        return (x * 0x9e3779b97f4a7c15L) ^ (x >>> 31);
    }

    @Test
    void codeMadeHotIsCountedAndAQuietWarmUpStopsOnItsThirdPass() throws Exception {
        try (JitWatch jit = JitWatch.start()) {
            long before = jit.compilations();
            long sum = 0;
            for (long i = 0; i < 2_000_000; i++) {
                sum += hot(i);
            }
            assertTrue(jit.compilations() > before, "a method called 2,000,000 times was compiled (" + sum + ")");

            AtomicInteger passes = new AtomicInteger();
            JitWatch.Warmed quiet = jit.warmUp(new JitWatch.Quiet(1_000_000, -1), 3, 150, passes::incrementAndGet);
            assertEquals(3, quiet.passes());
            assertEquals(3, passes.get());
            assertTrue(quiet.quiet(), quiet.toString());

            JitWatch.Warmed longer = jit.warmUp(new JitWatch.Quiet(1_000_000, -1), 5, 150, () -> {});
            assertEquals(5, longer.passes(), "a window of 5 passes needs 5 passes: " + longer);
            assertTrue(longer.toString().startsWith("5 passes, the last 5 with"), longer.toString());

            JitWatch.Warmed never = jit.warmUp(new JitWatch.Quiet(-1, -1), 3, 4, () -> {}); // both criteria off
            assertEquals(4, never.passes());
            assertFalse(never.quiet());
            assertTrue(never.toString().contains("NOT quiet"), never.toString());
        }
    }

    @Test
    void compilationLinesReadAsTierAndMethod() throws Exception {
        assertEquals(
                "3 java.lang.Object::<init>",
                JitWatch.tierAndMethod(
                        "[0.210s][jit,compilation]    1       3       java.lang.Object::<init> (1 bytes)"));
        assertEquals(
                "4 java.lang.String::hashCode",
                JitWatch.tierAndMethod(
                        "[0.273s][jit,compilation]  106       4       java.lang.String::hashCode (60 bytes)"));
        assertEquals(
                "0 jdk.internal.misc.Unsafe::getReferenceVolatile",
                JitWatch.tierAndMethod(
                        "[0.220s][jit,compilation]    3     n 0       jdk.internal.misc.Unsafe::getReferenceVolatile (native)"));
        assertEquals(
                "4% a.B::loop",
                JitWatch.tierAndMethod("[9.5s][jit,compilation] 2042 %     4       a.B::loop @ 12 (80 bytes)"));
        assertEquals("something else", JitWatch.tierAndMethod("  something else "));
        try (JitWatch jit = JitWatch.start()) {
            long before = jit.compilations();
            long sum = 0;
            for (long i = 0; i < 2_000_000; i++) {
                sum += hotToo(i);
            }
            List<String> compiled = jit.compiledSince(before);
            assertTrue(
                    compiled.stream().anyMatch(c -> c.matches("[0-4]%? .*JitWatchTest::hotToo")),
                    sum + ": " + compiled);
        }
    }

    private static long hotToo(long x) {
        return (x * 0x9e3779b97f4a7c15L) ^ (x >>> 29);
    }

    @Test
    void aWindowIsQuietByFewCompilationsOrByLittleCompilingTime() {
        JitWatch.Quiet quiet = new JitWatch.Quiet(3, 0.02);
        assertTrue(quiet.isQuiet(3, 500, 1000), "3 compilations are few, however long they took");
        assertTrue(quiet.isQuiet(19, 20, 1000), "19 small compilations: 2% of the CPU");
        assertFalse(quiet.isQuiet(19, 21, 1000), "just over 2% of the CPU");
        assertFalse(quiet.isQuiet(4, 300, 1000), "4 big compilations: 30% of the CPU");
        assertFalse(quiet.isQuiet(4, 0, -1), "no CPU figure: only the count decides");
        assertFalse(new JitWatch.Quiet(3, -1).isQuiet(4, 0, 1000), "the time criterion switched off");
    }

    @Test
    void aWarmUpThatCompilesInEveryPassIsNotQuietAndSaysSo() throws Exception {
        try (JitWatch jit = JitWatch.start()) {
            // each pass makes other code hot (another lambda's method) and burns CPU in it: compilations in every
            // window, so a count of 0 is never met (the time criterion off: how long the JIT takes is the host's)
            AtomicInteger pass = new AtomicInteger();
            JitWatch.Warmed warmed = jit.warmUp(new JitWatch.Quiet(0, -1), 3, 5, () -> {
                long sum = 0;
                int p = pass.incrementAndGet();
                java.util.function.LongUnaryOperator f = switch (p % 5) {
                    case 0 -> x -> x * 31 + p;
                    case 1 -> x -> x * 37 ^ p;
                    case 2 -> x -> (x << 3) - x + p;
                    case 3 -> x -> x * 41 - p;
                    default -> x -> (x >>> 1) * 43 + p;
                };
                for (long i = 0; i < 3_000_000; i++) {
                    sum += f.applyAsLong(i);
                }
                assertTrue(sum != 42);
            });
            assertEquals(5, warmed.passes(), warmed.toString());
            assertFalse(warmed.quiet(), warmed.toString());
            assertTrue(warmed.inWindow() > 0 && warmed.cpuMillis() > 0, warmed.toString());
            System.out.println("JitWatchTest: a warm-up compiling in every pass: " + warmed);
            assertTrue(
                    warmed.toString()
                            .matches("5 passes, the last 3 with \\d+ compilations, the compiler \\d+ ms "
                                    + "of the JVM's \\d+ ms CPU \\(NOT quiet.*"),
                    warmed.toString());
        }
    }
}
