package org.panamardma.verbs.ffi;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SequencedSet;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ABI check: compiles the probe of native-headers against the installed rdma-core headers, runs it, and
 * compares every struct size and alignment, field offset and size, and constant value it prints with the Java
 * layouts and constants of the ffi package, and that every bound function is declared and exported. All
 * mismatches are reported at once, each naming the symbol and both values.
 *
 * <p>Needs gcc and the rdma-core development headers (libibverbs-dev, librdmacm-dev); the testbed VM has them.
 * Without them the test is skipped with a hint, or fails when {@code -Drdma.require=true} (or, with the property
 * unset, the environment variable {@code CI=true}) says that it must run.
 */
@Tag("rdma-abi")
class AbiTest {

    static final String VERBS_H = "/usr/include/infiniband/verbs.h";
    static final String RDMA_CMA_H = "/usr/include/rdma/rdma_cma.h";

    @Test
    void javaBindingsMatchTheInstalledRdmaCoreHeaders(@TempDir Path dir) throws IOException, InterruptedException {
        String cc = System.getProperty("abi.cc", "gcc");
        List<String> missing = new ArrayList<>();
        if (!compilerWorks(cc, dir)) {
            missing.add("a C compiler (" + cc + ")");
        }
        for (String h : List.of(VERBS_H, RDMA_CMA_H)) {
            if (!Files.isRegularFile(Path.of(h))) {
                missing.add(h);
            }
        }
        if (!missing.isEmpty()) {
            String why = "the ABI check needs " + String.join(" and ", missing) + " (gcc, libibverbs-dev and "
                    + "librdmacm-dev of rdma-core). The testbed VM has them: ./run-tests.sh, or "
                    + "soft-roce-ci/bin/testbed run -- <command>.";
            if (required()) {
                fail("rdma.require is set (or CI=true) and " + why);
            }
            Assumptions.abort(why);
        }
        System.out.println("[abi] rdma-core: " + rdmaCoreVersion(dir));

        JavaBindings java = JavaBindings.scan();
        SymbolsList list = SymbolsList.load();
        // probe what Java binds and what the list says: a disagreement between the two is reported below too
        SequencedSet<String> keys = new LinkedHashSet<>(list.keys);
        keys.addAll(java.keys());
        AbiProbe.Result probe = AbiProbe.run(dir, keys, cc);
        probe.header().forEach(h -> System.out.println("[abi] " + h));

        List<String> mismatches = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        java.problems.forEach(p -> mismatches.add("convention: " + p));
        SymbolsList.disagreement(list, java).ifPresent(d -> mismatches.add("list: " + d));
        Map<String, Integer> checked = new TreeMap<>();
        for (String key : keys) {
            String kind = SymbolsList.kind(key);
            String rejected = probe.rejected().get(key);
            if (rejected != null) {
                mismatches.add(key + ": " + rejected);
                continue;
            }
            Map<String, String> c = probe.values().get(key);
            if (c == null) {
                mismatches.add(key + ": the probe printed nothing for it");
                continue;
            }
            List<JavaBindings.Binding> bindings = java.bindings.getOrDefault(key, List.of());
            if (kind.equals("func")) {
                if (!"yes".equals(c.get("exported"))) {
                    mismatches.add(key + ": declared in the headers but not exported by libibverbs / librdmacm "
                            + "(static inline?), so a downcall to it cannot link; call it through the function "
                            + "pointer it reads from its struct instead");
                } else if ("yes".equals(c.get("macro"))) {
                    notes.add(key + ": is also a macro in the headers, so C callers get what the macro expands to; "
                            + "the binding calls the exported symbol of that name");
                }
            }
            for (JavaBindings.Binding b : bindings) {
                for (var e : b.values().entrySet()) {
                    String cValue = c.get(e.getKey());
                    if (cValue == null) {
                        mismatches.add(key + ": the probe printed no " + e.getKey());
                        continue;
                    }
                    long cv = Long.parseLong(cValue);
                    long jv = e.getValue();
                    boolean same = cv == jv || unsignedInNarrowJavaType(cv, jv, b.javaType());
                    if (!same) {
                        mismatches.add(key + ": " + e.getKey() + " C=" + cv + " Java=" + jv + "  (" + b.source()
                                + (kind.equals("const") ? ", " + b.javaType() : "") + ")");
                    }
                }
            }
            checked.merge(kind, 1, Integer::sum);
        }
        System.out.println("[abi] probed " + keys.size() + " symbols against the headers: " + checked);
        notes.forEach(n -> System.out.println("[abi] note: " + n));
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " ABI mismatches between " + JavaBindings.PACKAGE
                    + " and the installed rdma-core headers (" + rdmaCoreVersion(dir) + "):\n  "
                    + String.join("\n  ", mismatches) + "\nprobe: " + probe.compileCommand());
        }
    }

    /** An unsigned C value held in a Java int/short/byte of its width, as jextract does it (0x80000000 as int). */
    static boolean unsignedInNarrowJavaType(long c, long java, String javaType) {
        int bits = switch (javaType) {
            case "int" -> 32;
            case "short" -> 16;
            case "byte" -> 8;
            default -> 64;
        };
        if (bits == 64 || c < 0 || c >= 1L << bits) {
            return false;
        }
        long mask = (1L << bits) - 1;
        return (c & mask) == (java & mask);
    }

    private static boolean compilerWorks(String cc, Path dir) throws InterruptedException {
        try {
            return AbiProbe.exec(List.of(cc, "--version"), dir, 60).rc() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** The rdma-core the probe compiles against, for the log. */
    static String rdmaCoreVersion(Path dir) throws InterruptedException {
        try {
            var dpkg = AbiProbe.exec(List.of("dpkg-query", "-W", "-f", "${Package} ${Version}  ",
                    "libibverbs-dev", "librdmacm-dev"), dir, 60);
            if (dpkg.rc() == 0 && !dpkg.output().isBlank()) {
                return dpkg.output().trim();
            }
        } catch (IOException e) {
            // no dpkg: not Debian
        }
        try {
            var pc = AbiProbe.exec(List.of("pkg-config", "--modversion", "libibverbs", "librdmacm"), dir, 60);
            if (pc.rc() == 0 && !pc.output().isBlank()) {
                return "libibverbs/librdmacm " + pc.output().trim().replace('\n', '/') + " (pkg-config)";
            }
        } catch (IOException e) {
            // no pkg-config
        }
        return "unknown version (no dpkg-query or pkg-config answer), headers " + VERBS_H;
    }

    /**
     * As the device tests' {@code RdmaDeviceExtension.required()}: {@code -Drdma.require=true} makes a missing
     * prerequisite a failure; when the property is unset or empty, the environment variable CI decides.
     */
    static boolean required() {
        String p = System.getProperty("rdma.require", "").trim();
        if (!p.isEmpty()) {
            return Boolean.parseBoolean(p);
        }
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }
}
