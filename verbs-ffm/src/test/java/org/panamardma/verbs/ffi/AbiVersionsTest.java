package org.panamardma.verbs.ffi;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.verbs.ffi.HeaderSets.SetLine;

/**
 * The ABI check against every supported rdma-core: one test per header set of native-headers/headers/sets (Debian
 * 12's rdma-core 44, Debian 13's 56), each compiled from the set's unpacked packages (-isystem, so headers installed
 * on the host are not used) and checked against its own libibverbs / librdmacm .so files (readelf: exports and
 * symbol versions), as {@link AbiCheck} describes. Runs host-side in the normal build (no tag); needs gcc and
 * the sets, which {@code native-headers/headers/fetch.sh all} downloads once into a cache. Without them each set is
 * skipped with that hint, or fails when {@code -Drdma.require=true} (or, with the property unset, {@code CI=true}).
 *
 * <p>{@code -Dabi.headers=DIR} names the cache (default as fetch.sh: $PANAMA_RDMA_HEADERS, else
 * ${XDG_CACHE_HOME:-~/.cache}/panama-rdma/headers).
 */
class AbiVersionsTest {

    static final String SETS = HeaderSets.SETS;

    @TestFactory
    Stream<DynamicTest> javaBindingsMatchEverySupportedRdmaCore(@TempDir Path dir) throws IOException {
        List<SetLine> sets = HeaderSets.sets();
        if (sets.isEmpty()) {
            fail(SETS + " names no header set");
        }
        JavaBindings java = JavaBindings.scan();
        SymbolsList list = SymbolsList.load();
        return sets.stream()
                .map(s -> DynamicTest.dynamicTest(
                        s.name() + " (" + s.suite() + ", rdma-core " + s.version() + ")",
                        () -> check(s, dir.resolve(s.name()), java, list)));
    }

    private static void check(SetLine s, Path dir, JavaBindings java, SymbolsList list)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        String cc = System.getProperty("abi.cc", "gcc");
        Path root = s.root();
        List<String> missing = new ArrayList<>();
        String multiarch = "";
        try {
            var m = AbiProbe.exec(List.of(cc, "-print-multiarch"), dir, 60);
            multiarch = m.output().trim();
            if (m.rc() != 0 || multiarch.isEmpty()) {
                missing.add("a C compiler that knows its multiarch triplet (" + cc + " -print-multiarch)");
            }
            if (AbiProbe.exec(List.of("readelf", "--version"), dir, 60).rc() != 0) {
                missing.add("readelf (binutils)");
            }
        } catch (IOException e) {
            missing.add(cc + " and readelf (" + e.getMessage() + ")");
        }
        if (!Files.isRegularFile(root.resolve("MANIFEST"))) {
            missing.add("the header set " + s.name() + " in " + root + " (fetch it once with "
                    + "native-headers/headers/fetch.sh " + s.name() + ", or fetch.sh all; needs a Debian mirror)");
        }
        if (!missing.isEmpty()) {
            String why = "the ABI check against " + s.name() + " needs " + String.join(" and ", missing);
            if (AbiTest.required()) {
                fail("rdma.require is set (or CI=true) and " + why);
            }
            Assumptions.abort(why);
        }
        Map<String, String> manifest = AbiCheck.manifest(root);
        String dev = manifest.get("libibverbs-dev");
        if (dev == null || !dev.equals(s.version()) || !s.version().equals(manifest.get("librdmacm-dev"))) {
            fail(root + "/MANIFEST says libibverbs-dev " + dev + ", librdmacm-dev " + manifest.get("librdmacm-dev")
                    + "; " + SETS + " wants " + s.version() + " (fetch it again: remove the folder, run fetch.sh)");
        }
        Path include = root.resolve("usr/include");
        Path lib = root.resolve("usr/lib").resolve(multiarch);
        String linux = AbiCheck.linuxUapi(include);
        String label = "rdma-core " + s.version() + " (" + s.name() + ", Debian " + s.suite() + ": "
                + String.join(
                        ", ",
                        manifest.entrySet().stream()
                                .map(e -> e.getKey() + " " + e.getValue())
                                .toList())
                + "; Linux uapi " + linux + ")";
        AbiCheck.HeaderSet set = new AbiCheck.HeaderSet(
                s.name(),
                label,
                AbiCheck.rdmaCoreMajor(s.version()),
                linux,
                List.of("-isystem", include.resolve(multiarch).toString(), "-isystem", include.toString()),
                false,
                List.of(lib.resolve("libibverbs.so.1"), lib.resolve("librdmacm.so.1")));
        AbiCheck.assertClean(set, AbiCheck.run(set, dir, cc, java, list));
    }
}
