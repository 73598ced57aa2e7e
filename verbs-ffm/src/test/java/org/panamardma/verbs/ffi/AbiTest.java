package org.panamardma.verbs.ffi;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ABI check against the installed rdma-core headers (the testbed VM's): compiles the probe of native-headers
 * against /usr/include, links it against the installed libraries, runs it, and compares every struct size and
 * alignment, field offset, size and kind, constant value, and function (declared, exported, prototype against the
 * Java descriptor) with the ffi package, expecting the items {@link Since} a later release than the installed one to
 * be absent (see {@link AbiCheck}). All mismatches are reported at once, each naming the symbol and both values.
 * {@link AbiVersionsTest} does the same against every supported header set (native-headers/headers), host-side.
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
        String version = rdmaCoreVersion(dir);
        System.out.println("[abi] rdma-core: " + version);
        AbiCheck.HeaderSet set = installed(cc, dir);
        AbiCheck.Report report = AbiCheck.run(set, dir, cc, JavaBindings.scan(), SymbolsList.load());
        AbiCheck.assertClean(set, report);
    }

    /** The installed headers (/usr/include), linked against the installed libraries, as a header set. */
    static AbiCheck.HeaderSet installed(String cc, Path dir) throws IOException, InterruptedException {
        String v = null;
        try {
            var dpkg = AbiProbe.exec(List.of("dpkg-query", "-W", "-f", "${Version}", "libibverbs-dev"), dir, 60);
            if (dpkg.rc() == 0 && !dpkg.output().isBlank()) {
                v = dpkg.output().trim();
            }
        } catch (IOException e) {
            // not Debian
        }
        if (v == null) {
            try {
                var pc = AbiProbe.exec(List.of("pkg-config", "--modversion", "libibverbs"), dir, 60);
                String[] t = pc.output().trim().split("\\.");
                if (pc.rc() == 0 && t.length >= 3) {
                    v = t[2] + (t.length > 3 ? "." + t[3] : ""); // 1.14.56.1: ABI 1.14, rdma-core 56.1
                }
            } catch (IOException e) {
                // no pkg-config
            }
        }
        if (v == null) {
            throw new AssertionError("cannot tell which rdma-core " + VERBS_H + " belongs to (no dpkg-query or "
                    + "pkg-config answer), so not which @Since items to expect");
        }
        String linux = AbiCheck.linuxUapi(Path.of("/usr/include"));
        List<Path> libs = new ArrayList<>();
        for (String lib : List.of("libibverbs.so", "librdmacm.so")) {
            var where = AbiProbe.exec(List.of(cc, "-print-file-name=" + lib), dir, 60);
            Path p = Path.of(where.output().trim());
            if (where.rc() == 0 && p.isAbsolute() && Files.exists(p)) {
                libs.add(p);
            }
        }
        return new AbiCheck.HeaderSet(
                "installed",
                "the installed rdma-core " + v + " (" + rdmaCoreVersion(dir) + "; Linux uapi " + linux
                        + ", /usr/include)",
                AbiCheck.rdmaCoreMajor(v),
                linux,
                List.of(),
                true,
                libs);
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
            var dpkg = AbiProbe.exec(
                    List.of("dpkg-query", "-W", "-f", "${Package} ${Version}  ", "libibverbs-dev", "librdmacm-dev"),
                    dir,
                    60);
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
