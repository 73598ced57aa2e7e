package org.panamardma.rdmatool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class JitQuiescenceTest {
    @Test
    void readsTheCpuTimeOfCompilerThreadsOnly() {
        String c2 = "4242 (C2 CompilerThre) S 1 4240 4240 0 -1 4194368 7 0 0 0 311 27 0 0 20 0 21 0 190 0 0";
        assertEquals(338, JitQuiescence.compilerTicks(c2));
        assertEquals(
                5,
                JitQuiescence.compilerTicks(
                        "17 (C1 CompilerThre) R 1 17 17 0 -1 4194368 0 0 0 0 4 1 0 0 20 0 21 0 190 0 0"));
        assertEquals(
                0,
                JitQuiescence.compilerTicks(
                        "18 (VM Thread) S 1 17 17 0 -1 4194368 0 0 0 0 400 100 0 0 20 0 21 0 190 0 0"),
                "not a compiler");
        assertEquals(
                0,
                JitQuiescence.compilerTicks(
                        "19 (a (C2 Compiler) lookalike) S 1 17 17 0 -1 0 0 0 0 0 4 1 0 0 20 0 21 0 190 0 0"),
                "the name is what lies between the first '(' and the last ')'");
        assertEquals(0, JitQuiescence.compilerTicks("garbage"));
    }

    @Test
    void thisJvmsCompilersAreFoundAndAWaitEndsWithinItsBound() throws Exception {
        assertTrue(JitQuiescence.compilerTicks() >= 0, "/proc/self/task is readable on Linux");
        long t0 = System.nanoTime();
        Duration waited = JitQuiescence.await(Duration.ofMillis(300), Duration.ofSeconds(5));
        long elapsed = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(waited.toMillis() >= 300 && elapsed <= 6000, "waited " + waited + ", " + elapsed + " ms in all");
    }
}
