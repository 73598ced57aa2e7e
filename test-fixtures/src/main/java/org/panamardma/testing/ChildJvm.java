package org.panamardma.testing;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A main class of the tests run in a JVM of its own: a peer to kill with SIGKILL mid-stream, an allocation probe, or
 * what could wedge the JVM that runs it (a thread spinning in a critical downcall keeps every safepoint, and so the
 * whole JVM, waiting).
 *
 * <p>The child runs on the class path with what this JVM has, wherever the tests were loaded from: the URL class
 * loaders' entries (JUnit's console launcher loads the tests from its {@code --class-path} in one), the main class's
 * own jar or folder (on the module path, surefire and the device suite, the test classes are patched into their
 * module and {@code java.class.path} is empty), then the class path and the module path as plain jars.
 */
public final class ChildJvm {
    /** The flags of a short-lived helper JVM: one GC thread, C1 only, so that it starts fast on an emulated guest. */
    public static final List<String> QUICK_START = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private ChildJvm() {}

    /**
     * What the child printed (stdout and stderr, interleaved), and whether and how it ended before the deadline.
     *
     * @param finished whether it ended before the deadline (else it was killed)
     * @param exitCode its exit code; -1 where it was killed at the deadline
     * @param output what it printed
     */
    public record Result(boolean finished, int exitCode, String output) {
        /**
         * The {@code key=value} lines of the output.
         *
         * @return the values by key, in order of first appearance (a later line wins)
         */
        public Map<String, String> values() {
            return ChildJvm.values(output);
        }
    }

    /**
     * The {@code key=value} lines a child printed: how the probes report (a key is letters, digits and dots).
     *
     * @param output what the child printed
     * @return the values by key, in order of first appearance (a later line wins)
     */
    public static Map<String, String> values(String output) {
        Map<String, String> r = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && line.substring(0, eq).matches("[a-zA-Z0-9.]+")) {
                r.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return r;
    }

    /**
     * Runs {@code main} with {@link #QUICK_START} and waits for it up to {@code deadline}; past it the child is killed
     * with SIGKILL, the only signal a wedged JVM still obeys, and the result says so.
     *
     * @param main the class whose {@code main} the child runs
     * @param deadline how long to wait for it
     * @param args its arguments
     * @return what it printed and how it ended
     * @throws IOException when the child cannot be started
     * @throws InterruptedException when interrupted while waiting
     */
    public static Result run(Class<?> main, Duration deadline, String... args)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command(main, QUICK_START, args)).redirectErrorStream(true);
        pb.environment().remove("JDK_JAVA_OPTIONS"); // its "Picked up..." line would be part of the output
        Process p = pb.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader =
                Thread.ofPlatform().daemon().name("child-jvm-output").start(() -> copy(p.getInputStream(), out));
        boolean finished = p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS);
        if (!finished) {
            p.destroyForcibly();
            p.waitFor(60, TimeUnit.SECONDS);
        }
        reader.join(10_000);
        String output;
        synchronized (out) {
            output = out.toString(StandardCharsets.UTF_8);
        }
        return new Result(finished, finished ? p.exitValue() : -1, output);
    }

    /**
     * The command line of a child JVM: this JVM's {@code java}, native access for the unnamed module (the child's
     * code is on the class path), {@code jvmOptions}, the class path of {@link #classPath}, {@code main} and
     * {@code args}.
     *
     * @param main the class whose {@code main} the child runs
     * @param jvmOptions the JVM's options ({@link #QUICK_START}, or what a measurement needs)
     * @param args the arguments of {@code main}
     * @return the command, for a {@link ProcessBuilder}
     */
    public static List<String> command(Class<?> main, List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath(main), main.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /**
     * The class path of a child JVM that runs {@code main}, from what this JVM has (see the class comment).
     *
     * @param main a class the child must find
     * @return the entries, joined by the path separator, each once
     */
    public static String classPath(Class<?> main) {
        Set<String> entries = new LinkedHashSet<>();
        for (ClassLoader l = main.getClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader u) {
                for (URL url : u.getURLs()) {
                    entries.add(path(url));
                }
            }
        }
        entries.add(path(main.getProtectionDomain().getCodeSource().getLocation()));
        for (String e : (System.getProperty("java.class.path")
                        + File.pathSeparator
                        + System.getProperty("jdk.module.path", ""))
                .split(File.pathSeparator)) {
            if (!e.isEmpty()) {
                entries.add(e);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        byte[] buffer = new byte[8192];
        try (in) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                synchronized (out) {
                    out.write(buffer, 0, n);
                }
            }
        } catch (IOException e) {
            // the child was killed: what it wrote so far is kept
        }
    }

    private static String path(URL url) {
        try {
            return Path.of(url.toURI()).toString();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return url.getPath();
        }
    }
}
