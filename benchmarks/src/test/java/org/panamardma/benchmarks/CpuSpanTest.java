package org.panamardma.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link CpuSpan} reads /proc's stat lines right even for a thread whose name holds spaces and parentheses (a name is
 * any 15 bytes a program chose), and a span in which one named thread burns CPU charges that thread with it.
 */
class CpuSpanTest {
    @Test
    void statLinesWithHostileThreadNamesAreReadFromTheLastParenthesis() {
        // fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        String line = "4242 (a) (b) 7 c2) S 1 4242 4242 0 -1 4194560 10 0 0 0 123 45 0 0 20 0 30 0 99\n";
        assertArrayEquals(new long[] {123, 45}, CpuSpan.statTimes(line));
        assertEquals("a) (b) # c#", CpuSpan.group(line));
        assertEquals("C# CompilerThre", CpuSpan.group("17 (C2 CompilerThre) S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0"));
        assertArrayEquals(
                new long[] {10, 2, 30, 400, 5, 6, 70, 0},
                CpuSpan.fields("cpu  10 2 30 400 5 6 70 0 0 0\n", 1, 8)); // /proc/stat's first line
        assertThrows(IllegalArgumentException.class, () -> CpuSpan.statTimes("1 (x) S 1 2 3"), "a cut-off line");
    }

    @Test
    void aThreadThatBurnsCpuInASpanIsChargedWithIt() throws Exception {
        CpuSpan span = new CpuSpan();
        AtomicBoolean stop = new AtomicBoolean();
        long[] sink = new long[1];
        Thread burner = Thread.ofPlatform().name("cpu-span-burner").unstarted(() -> {
            long x = 1;
            while (!stop.get()) { // alive at both readings, however long a cold JVM takes over the first
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            sink[0] = x;
        });
        burner.start();
        span.begin();
        Thread.sleep(250);
        span.end();
        stop.set(true);
        burner.join();
        String line = span.perCall(1);
        Matcher m = Pattern.compile("cpu-span-burner ([0-9.]+),").matcher(line);
        assertTrue(m.find(), line);
        // spinning through the whole span: most of its 250 ms even on a loaded 2-core host, never more than the wall
        double burnt = Double.parseDouble(m.group(1));
        Matcher wall = Pattern.compile("^wall ([0-9.]+) ms").matcher(line);
        assertTrue(wall.find(), line);
        assertTrue(Double.parseDouble(wall.group(1)) >= 250, line);
        assertTrue(burnt >= 30 && burnt <= Double.parseDouble(wall.group(1)) + 20, line);
        assertThrows(IllegalStateException.class, span::end, "end() without begin()");
    }
}
