package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.testing.SourceScan;

/**
 * The dependency rule (docs/architecture.md, "The dependency rule"): the header codec and the transports' protocol
 * logic need no device. Checked on the sources, since the module as a whole does depend on verbs-ffm. ({@code xdr}
 * and {@code oncrpc} are a module of their own with no verbs at all: oncrpc's {@code OncRpcIndependenceTest}.)
 */
class PackageIndependenceTest {
    private static final Path MAIN = Path.of("src/main/java/org/panamardma");

    private static List<String> offenders(String pkg, int depth, String... forbidden) throws IOException {
        return SourceScan.mentioning(MAIN.resolve(pkg), depth, forbidden);
    }

    @Test
    void headerCodecNeedsNoDevice() throws IOException {
        // the package itself; its client and server subpackages are the transports over verbs-ffm
        assertEquals(List.of(), offenders("rpcrdma", 1, "org.panamardma.verbs"));
    }

    @Test
    void chunkPlanningNeedsNoDevice() throws IOException {
        for (String pure : List.of("ChunkPlanner.java", "CallPlan.java", "ReplyExpectation.java")) {
            String source = Files.readString(MAIN.resolve("rpcrdma/client").resolve(pure));
            assertFalse(source.contains("org.panamardma.verbs"), pure + " imports verbs");
        }
    }

    @Test
    void serverProtocolLogicNeedsNoDevice() throws IOException {
        for (String pure : List.of(
                "RpcRdmaCallHandler.java",
                "CallAssembler.java",
                "WriteListPlacement.java",
                "ConnectionSettings.java",
                "ChunkTransfers.java",
                "ConfigRdmaProgram.java")) {
            String source = Files.readString(MAIN.resolve("rpcrdma/server").resolve(pure));
            assertFalse(source.contains("org.panamardma.verbs"), pure + " imports verbs");
        }
    }

    /**
     * Issue 26: the server registers nothing for remote access. Its chunk memory comes from the memory package
     * through a {@code LocalRegistrar} (local rights only, by type); no server source reaches the only kinds of remote
     * exposure there are (a client call's {@code CallRegistrar}, {@code MemoryWindows}, {@code ChunkAccess}) or
     * names a remote right.
     */
    @Test
    void serverRegistersNothingForRemoteAccess() throws IOException {
        assertEquals(
                List.of(),
                offenders(
                        "rpcrdma/server",
                        1,
                        "CallRegistrar",
                        "MemoryWindows",
                        "ChunkAccess",
                        "Exposure",
                        "REMOTE_READ",
                        "REMOTE_WRITE",
                        "REMOTE_ATOMIC",
                        "MW_BIND",
                        "WINDOW_BASE"));
    }
}
