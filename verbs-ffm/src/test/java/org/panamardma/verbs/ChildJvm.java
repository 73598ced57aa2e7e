package org.panamardma.verbs;

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
 * A main class of the tests run in a JVM of its own, with a deadline: for what could wedge the JVM that runs it (a
 * thread spinning in a critical downcall keeps every safepoint, and so the whole JVM, waiting). Past the deadline
 * the child is killed with SIGKILL, the only signal such a JVM still obeys, and the result says so.
 *
 * <p>The child runs on the class path with what this JVM has: on the module path (surefire, the device suite) the
 * test classes' own jar or folder (patched into the module) and the module path; else the class path.
 */
final class ChildJvm {
    private ChildJvm() {}

    /** What the child printed (stdout and stderr, interleaved), and whether and how it ended before the deadline. */
    record Result(boolean finished, int exitCode, String output) {
        /** The {@code key=value} lines of the output, in order (later ones win). */
        Map<String, String> values() {
            Map<String, String> r = new LinkedHashMap<>();
            for (String line : output.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0 && line.substring(0, eq).matches("[a-zA-Z0-9.]+")) {
                    r.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            return r;
        }
    }

    static Result run(Class<?> main, Duration deadline, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classPath(main),
                main.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().remove("JDK_JAVA_OPTIONS");
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

    private static String classPath(Class<?> main) {
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

    private static String path(URL url) {
        try {
            return Path.of(url.toURI()).toString();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return url.getPath();
        }
    }
}
