package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Linker;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the NFS server's binding to the C library checked, as verbs-ffm's is (SymbolsListTest, AbiTest):
 * native-headers/symbols/libc.symbols lists every function {@link Libc} binds and every constant and struct size
 * {@link Posix} and {@link ThreadCredentials} use. The list and the Java side must agree in both directions, the C
 * library must export every function, and a probe compiled from the installed headers must print the values the
 * Java side hard-codes. A constant added to Posix without a line here, a function bound without one, or a value
 * that differs from the headers fails the build.
 */
class LibcSymbolsTest {
    private static final Path LIST = Path.of("../native-headers/symbols/libc.symbols");
    private static final Path LIBC_SOURCE = Path.of("src/main/java/org/panamardma/nfs/server/Libc.java");
    private static final List<Class<?>> WRAPPERS = List.of(Posix.class, ThreadCredentials.class);
    private static final String HEADERS = """
            #define _GNU_SOURCE
            #include <fcntl.h>
            #include <sys/stat.h>
            #include <sys/statvfs.h>
            #include <sys/uio.h>
            #include <dirent.h>
            #include <unistd.h>
            #include <sched.h>
            #include <limits.h>
            #include <sys/syscall.h>
            #include <linux/openat2.h>
            #include <linux/fs.h>
            #include <linux/capability.h>
            #include <stdio.h>
            """;

    /** One line of the list: its kind, the Java field ("Class.FIELD") or function, and the C side. */
    record Entry(String kind, String name, String c) {}

    static List<Entry> list() throws IOException {
        assertTrue(Files.exists(LIST), "run from the nfs module directory: no " + LIST.toAbsolutePath());
        List<Entry> entries = new ArrayList<>();
        for (String line : Files.readAllLines(LIST)) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String[] p = l.split("\\s+", 3);
            entries.add(new Entry(p[0], p[1], p.length > 2 ? p[2] : ""));
        }
        return entries;
    }

    private static Set<String> names(List<Entry> entries, Set<String> kinds) {
        TreeSet<String> out = new TreeSet<>();
        entries.stream().filter(e -> kinds.contains(e.kind())).forEach(e -> out.add(e.name()));
        return out;
    }

    /** The functions Libc binds, from its source: every {@code plain("name"} and {@code withErrno("name"}. */
    static Set<String> boundFunctions() throws IOException {
        Matcher m = Pattern.compile("(?:plain|withErrno)\\(\\s*\"(\\w+)\"").matcher(Files.readString(LIBC_SOURCE));
        TreeSet<String> out = new TreeSet<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** The numeric constants of the wrappers: static final int, long and byte fields, as "Class.FIELD". */
    static Map<String, Long> javaConstants() throws IllegalAccessException {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Class<?> c : WRAPPERS) {
            for (Field f : c.getDeclaredFields()) {
                int mod = f.getModifiers();
                Class<?> t = f.getType();
                if (Modifier.isStatic(mod)
                        && Modifier.isFinal(mod)
                        && (t == int.class || t == long.class || t == byte.class)) {
                    f.setAccessible(true);
                    out.put(c.getSimpleName() + "." + f.getName(), ((Number) f.get(null)).longValue());
                }
            }
        }
        return out;
    }

    @Test
    void theListAndTheJavaSideAgreeInBothDirections() throws Exception {
        List<Entry> entries = list();
        assertEquals(
                boundFunctions(),
                names(entries, Set.of("func")),
                "functions bound in Libc.java vs func lines of " + LIST);
        assertEquals(
                new TreeSet<>(javaConstants().keySet()),
                names(entries, Set.of("const", "size", "derived")),
                "numeric constants of Posix and ThreadCredentials vs const/size/derived lines of " + LIST);
    }

    @Test
    void theCLibraryExportsEveryListedFunction() throws Exception {
        List<String> missing = names(list(), Set.of("func")).stream()
                .filter(f -> Linker.nativeLinker().defaultLookup().find(f).isEmpty())
                .toList();
        assertEquals(List.of(), missing, "not exported by this C library");
    }

    @Test
    void everyConstantAndSizeIsWhatTheInstalledHeadersSay(@TempDir Path dir) throws Exception {
        List<Entry> checked = list().stream()
                .filter(e -> e.kind().equals("const") || e.kind().equals("size"))
                .toList();
        assertEquals(List.of(), disagreements(checked, dir));
    }

    @Test
    void aValueThatDiffersFromTheHeadersIsReported(@TempDir Path dir) throws Exception {
        // the check itself can fail: O_CREAT held against O_EXCL's value, and a size against another struct's
        List<String> found = disagreements(
                List.of(
                        new Entry("const", "Posix.O_CREAT", "O_EXCL"),
                        new Entry("size", "Posix.STATX_SIZE", "struct stat")),
                dir);
        assertEquals(2, found.size(), String.join("\n", found));
    }

    /** Compiles and runs a probe printing each entry's C value; returns the entries whose Java value differs. */
    static List<String> disagreements(List<Entry> entries, Path dir) throws Exception {
        Path gcc = Stream.of("/usr/bin/gcc", "/usr/bin/cc", "/usr/local/bin/gcc")
                .map(Path::of)
                .filter(Files::isExecutable)
                .findFirst()
                .orElse(null);
        if (gcc == null) {
            boolean ci = "true".equals(System.getenv("CI"));
            assertTrue(!ci, "CI: no C compiler to check libc.symbols against the headers");
            Assumptions.abort("no C compiler here: the headers' values are checked where gcc is");
        }
        StringBuilder c = new StringBuilder(HEADERS).append("int main(void) {\n");
        for (Entry e : entries) {
            String value = e.kind().equals("size") ? "sizeof(" + e.c() + ")" : "(" + e.c() + ")";
            c.append("    printf(\"%lld\\n\", (long long) ").append(value).append(");\n");
        }
        c.append("    return 0;\n}\n");
        Path source = Files.writeString(dir.resolve("libc-probe.c"), c);
        Path probe = dir.resolve("libc-probe");
        run(List.of(gcc.toString(), "-o", probe.toString(), source.toString()));
        List<String> values = run(List.of(probe.toString())).lines().toList();
        assertEquals(entries.size(), values.size(), "probe output");
        Map<String, Long> java = javaConstants();
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            long cValue = Long.parseLong(values.get(i).strip());
            Long javaValue = java.get(e.name());
            if (javaValue == null || javaValue != cValue) {
                wrong.add(e.name() + " is " + javaValue + " in Java, " + e.c() + " is " + cValue + " in C");
            }
        }
        return wrong;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), command + " did not finish in 60 s");
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), command + ":\n" + text);
        return text;
    }
}
