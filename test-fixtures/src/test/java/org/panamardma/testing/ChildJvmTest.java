package org.panamardma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A test class runs in a child JVM from the class path ChildJvm puts together (here surefire's module path, the test
 * classes patched into org.panamardma.testing), says what it was given, and one that never ends is killed at the
 * deadline.
 */
class ChildJvmTest {

    /** Prints its arguments as {@code arg.N=value} lines and exits with the code its first argument names. */
    static final class Reporter {
        public static void main(String[] args) {
            for (int i = 0; i < args.length; i++) {
                System.out.println("arg." + i + "=" + args[i]);
            }
            System.out.println("not a value line");
            System.out.println("arg.0=" + args[0] + " again");
            System.exit(Integer.parseInt(args[0]));
        }
    }

    /** Says it started, then never ends (a wedged JVM, as far as the caller can tell). */
    static final class Sleeper {
        public static void main(String[] args) throws InterruptedException {
            System.out.println("started=yes");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    @Test
    void theChildFindsATestClassRunsItAndReportsItsOutputAndExitCode() throws Exception {
        ChildJvm.Result r = ChildJvm.run(Reporter.class, Duration.ofMinutes(2), "3", "b c");
        assertTrue(r.finished(), r.output());
        assertEquals(3, r.exitCode(), r.output());
        assertEquals(Map.of("arg.0", "3 again", "arg.1", "b c"), r.values(), "a later line wins; prose is no value");
    }

    @Test
    void aChildPastItsDeadlineIsKilledAndWhatItSaidIsKept() throws Exception {
        // long enough for a JVM to start on a loaded host (it must have printed before the kill), short for CI
        ChildJvm.Result r = ChildJvm.run(Sleeper.class, Duration.ofSeconds(20));
        assertFalse(r.finished(), r.output());
        assertEquals(-1, r.exitCode());
        assertEquals("yes", r.values().get("started"), "it ran before it was killed: " + r.output());
    }

    @Test
    void theCommandIsThisJavaTheOptionsTheClassPathTheMainClassAndItsArguments() throws Exception {
        List<String> c = ChildJvm.command(Reporter.class, List.of("-Xmx64m"), "x");
        Path self = Path.of(ProcessHandle.current().info().command().orElseThrow());
        assertTrue(Files.isSameFile(self, Path.of(c.get(0))), "this JVM's java: " + c.get(0) + ", " + self);
        assertEquals(List.of("--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-cp"), c.subList(1, 4), c.toString());
        assertEquals(List.of(Reporter.class.getName(), "x"), c.subList(5, 7), c.toString());
        assertTrue(c.get(4).contains("test-classes"), "the test classes are on the child's class path: " + c.get(4));
    }
}
