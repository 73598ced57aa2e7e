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
            JitWatch.Warmed quiet = jit.warmUp(1_000_000, 3, 150, passes::incrementAndGet);
            assertEquals(3, quiet.passes());
            assertEquals(3, passes.get());
            assertTrue(quiet.quiet(), quiet.toString());

            JitWatch.Warmed longer = jit.warmUp(1_000_000, 5, 150, () -> {});
            assertEquals(5, longer.passes(), "a window of 5 passes needs 5 passes: " + longer);
            assertTrue(longer.toString().startsWith("5 passes, the last 5 with"), longer.toString());

            JitWatch.Warmed never = jit.warmUp(-1, 3, 4, () -> {}); // no count is at most -1
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
}
