package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.testing.ChildJvm;
import org.panamardma.verbs.ffi.Native;

/**
 * RdmaCore against real libraries in child JVMs ({@link RdmaCoreReport}): this host's libibverbs copied under other
 * file names and found first through {@code LD_LIBRARY_PATH}, so that the same real library is seen as a plain
 * {@code libibverbs.so.1} (release unknown: allowed with the lower bound of its symbol versions), as an older
 * release (refused), and as a newer one its symbol versions contradict (not believed). And a JVM that denies native
 * access: refused with that reason, twice, never a NoClassDefFoundError.
 *
 * <p>Needs rdma-core's libibverbs on the host (Debian: libibverbs1; CI's .ci/run installs it); skipped without,
 * except the native-access case, which needs nothing.
 */
class RdmaCoreChildJvmTest {

    @Test
    void aPlainSonameCopyIsUsedWithTheLowerBoundOfItsSymbolVersions(@TempDir Path dir) throws Exception {
        Path real = installedLibibverbs();
        Files.copy(real, dir.resolve("libibverbs.so.1"));
        Map<String, String> r = run(dir, List.of());
        assertEquals("libibverbs.so.1", r.get("file"), r.toString());
        // rdma-core 44 to 48 export __verbs_log@IBVERBS_PRIVATE_34 (37..56) and nothing newer; 49..56 more
        String version = r.get("version");
        assertTrue(version.startsWith("of unknown release, at least "), version);
        int lower = lowerBound(version);
        int installed = RdmaCore.ibverbs().verdict().version().major();
        assertTrue(lower <= installed && lower >= 37, lower + " vs installed " + installed);
        assertEquals(String.valueOf(lower >= 45), r.get("flush"), r.toString());
        assertEquals(String.valueOf(lower >= 44), r.get("atomicWrite"), r.toString());
        assertTrue(r.get("list1").startsWith("ok "), r.toString());
        assertTrue(
                r.get("stderr")
                        .contains("WARNING: libibverbs's file name libibverbs.so.1 does not tell its "
                                + "rdma-core release"),
                r.get("stderr"));
        if (lower < 45) {
            assertEquals(
                    "RDMA FLUSH needs rdma-core 45 or later (ibv_wr_flush); the installed libibverbs is " + "rdma-core "
                            + version,
                    r.get("flushRequire"));
        }
    }

    @Test
    void aCopyNamedAsAnOlderReleaseIsRefusedAtTheFirstEntries(@TempDir Path dir) throws Exception {
        Path real = installedLibibverbs();
        Files.copy(real, dir.resolve("libibverbs.so.1.14.43.0"));
        Files.createSymbolicLink(dir.resolve("libibverbs.so.1"), Path.of("libibverbs.so.1.14.43.0"));
        Map<String, String> r = run(dir, List.of());
        assumeSymbolVersionsAdmit43(r);
        assertEquals("libibverbs.so.1.14.43.0", r.get("file"), "the real file behind the symlink: " + r);
        assertEquals("43.0", r.get("version"), r.toString());
        String refused = "org.panamardma.verbs.RdmaLibraryException: libibverbs is rdma-core 43.0, older than 44, the "
                + "oldest release supported (Debian 12's): install rdma-core 44 or later";
        assertEquals(refused, r.get("list1"));
        assertEquals(refused, r.get("list2"));
        assertTrue(r.get("eventChannel").startsWith("org.panamardma.verbs.RdmaLibraryException: "), r.toString());
        assertEquals("false", r.get("flush"));
        assertEquals("false", r.get("atomicWrite"));
    }

    @Test
    void aCopyNamedAsANewerReleaseThanItsSymbolVersionsAllowIsNotBelieved(@TempDir Path dir) throws Exception {
        Path real = installedLibibverbs();
        Assumptions.assumeTrue(
                RdmaCore.ibverbs().verdict().version().major() <= 56,
                "the installed libibverbs has IBVERBS_PRIVATE_34 (rdma-core 34 to 56)");
        Files.copy(real, dir.resolve("libibverbs.so.1.14.60.0"));
        Files.createSymbolicLink(dir.resolve("libibverbs.so.1"), Path.of("libibverbs.so.1.14.60.0"));
        Map<String, String> r = run(dir, List.of());
        assertTrue(r.get("version").startsWith("of unknown release, at least "), r.toString());
        assertTrue(r.get("list1").startsWith("ok "), r.toString());
        assertTrue(
                r.get("stderr")
                        .contains(
                                "WARNING: libibverbs's file libibverbs.so.1.14.60.0 names rdma-core "
                                        + "60.0, but its symbol versions (IBVERBS_1.14, IBVERBS_PRIVATE_34) belong to rdma-core "),
                r.get("stderr"));
        int lower = lowerBound(r.get("version"));
        assertTrue(lower < 60, r.toString());
        assertEquals(String.valueOf(lower >= 45), r.get("flush"), "the symbols' lower bound decides, not the name");
    }

    @Test
    void denyingNativeAccessIsReportedAsSuchEveryTime(@TempDir Path dir) throws Exception {
        Map<String, String> r = run(dir, List.of("--illegal-native-access=deny"), false);
        String expected = "org.panamardma.verbs.RdmaLibraryException: libibverbs.so.1 cannot be loaded: native access "
                + "is not enabled for panama-rdma";
        assertTrue(r.get("list1").startsWith(expected), r.toString());
        assertEquals(r.get("list1"), r.get("list2"), "the same refusal again, no NoClassDefFoundError");
        assertTrue(
                r.get("list1")
                        .endsWith("run java with --enable-native-access=org.panamardma.verbs, or ALL-UNNAMED "
                                + "on the class path"),
                r.toString());
        assertTrue(
                r.get("eventChannel")
                        .startsWith("org.panamardma.verbs.RdmaLibraryException: librdmacm.so.1 "
                                + "cannot be loaded: native access is not enabled"),
                r.toString());
        assertEquals("false", r.get("flush"));
    }

    /** 37 of "of unknown release, at least 37 by its symbol versions". */
    private static int lowerBound(String version) {
        assertTrue(version.startsWith("of unknown release, at least "), version);
        return Integer.parseInt(version.replaceAll("\\D+", " ").trim().split(" ")[0]);
    }

    private static Path installedLibibverbs() throws IOException {
        Assumptions.assumeTrue(
                Native.IBVERBS.isLoaded(), "no libibverbs on this host (Debian: apt-get install " + "libibverbs1)");
        Path file = RdmaCore.ibverbsFile().orElseThrow(() -> new AssertionError(RdmaCore.describe()));
        return file.toRealPath();
    }

    /** A real 49..56 proves 49 by ibv_wr_opcode_str: named 43 it is contradicted, not refused as 43. */
    private static void assumeSymbolVersionsAdmit43(Map<String, String> r) {
        Assumptions.assumeTrue(
                RdmaCore.ibverbs().verdict().version().major() < 49,
                "the installed libibverbs proves 49 or later by its symbol versions: " + r);
    }

    private static Map<String, String> run(Path libraryDir, List<String> jvmOptions) throws Exception {
        return run(libraryDir, jvmOptions, true);
    }

    private static Map<String, String> run(Path libraryDir, List<String> jvmOptions, boolean nativeAccess)
            throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (nativeAccess) {
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        command.addAll(jvmOptions);
        // on the class path, the case of most users
        command.addAll(List.of("-cp", ChildJvm.classPath(RdmaCoreReport.class), RdmaCoreReport.class.getName()));
        Path stderr = libraryDir.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(stderr.toFile());
        pb.environment().put("LD_LIBRARY_PATH", libraryDir.toString());
        pb.environment().remove("JDK_JAVA_OPTIONS");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        String err = Files.readString(stderr);
        assertEquals(0, p.exitValue(), out + err);
        Map<String, String> r = ChildJvm.values(out);
        assertTrue(r.containsKey("list2"), out + err);
        r.put("stderr", err);
        return r;
    }
}
