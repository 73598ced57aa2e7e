package org.panamardma.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ResolvedModule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.panamardma.testing.SourceScan;
import org.panamardma.xdr.XdrDecoder;

/**
 * The rule of DESIGN.md that makes this module worth having: XDR and ONC RPC know nothing of RDMA, so that a user of
 * plain ONC RPC over TCP takes no FFM binding with it. Checked three ways, each of which a dependency on verbs-ffm
 * (a {@code requires} in module-info, a Maven dependency of any scope, an import) breaks: the module's descriptor and
 * the graph resolved from it, what the test JVM can load at all, and the sources.
 */
class OncRpcIndependenceTest {
    private static final Module MODULE = XdrDecoder.class.getModule();

    @Test
    void theModuleRequiresNoOtherModuleOfTheProject() {
        assertTrue(MODULE.isNamed(), "the tests run on the module path, patched into org.panamardma.oncrpc");
        assertEquals("org.panamardma.oncrpc", MODULE.getName());
        List<String> project = MODULE.getDescriptor().requires().stream()
                .map(ModuleDescriptor.Requires::name)
                .filter(n -> n.startsWith("org.panamardma."))
                .toList();
        assertEquals(List.of(), project, "org.panamardma.oncrpc must stand alone");
    }

    @Test
    void theResolvedGraphOfTheModuleDoesNotReachVerbs() {
        // what the module reads through its requires, transitively (the reads surefire adds for the tests are not
        // part of the resolved configuration)
        ResolvedModule self =
                MODULE.getLayer().configuration().findModule(MODULE.getName()).orElseThrow();
        Set<String> reached = new HashSet<>();
        ArrayDeque<ResolvedModule> todo = new ArrayDeque<>(List.of(self));
        while (!todo.isEmpty()) {
            for (ResolvedModule read : todo.pop().reads()) {
                if (reached.add(read.name())) {
                    todo.add(read);
                }
            }
        }
        assertTrue(reached.stream().noneMatch(n -> n.startsWith("org.panamardma.")), "reads " + reached);
    }

    @Test
    void verbsFfmIsNotOnTheTestPathsAtAll() {
        // neither the module path nor the class path of this module's tests has the FFM binding: no dependency of
        // any scope brings it in
        assertTrue(ModuleLayer.boot().findModule("org.panamardma.verbs").isEmpty(), "verbs-ffm on the module path");
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.panamardma.verbs.Device"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.panamardma.rpcrdma.RpcRdmaHeader"));
    }

    @Test
    void theSourcesImportNothingOfRdma() throws IOException {
        Path main = Path.of("src/main/java/org/panamardma");
        assertTrue(Files.isDirectory(main.resolve("xdr")), "run from the module directory");
        assertEquals(
                List.of(),
                SourceScan.mentioning(
                        main.resolve("xdr"),
                        Integer.MAX_VALUE,
                        "org.panamardma.verbs",
                        "org.panamardma.rpcrdma",
                        "org.panamardma.oncrpc"));
        assertEquals(
                List.of(),
                SourceScan.mentioning(
                        main.resolve("oncrpc"),
                        Integer.MAX_VALUE,
                        "org.panamardma.verbs",
                        "org.panamardma.rpcrdma",
                        "java.lang.foreign.Linker",
                        "java.lang.foreign.SymbolLookup"));
    }
}
