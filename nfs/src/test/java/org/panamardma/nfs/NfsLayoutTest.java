package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.testing.SourceScan;

/**
 * The floor plan of the nfs module (issue 27): the protocols' types have one home shared by client and server, so
 * the server imports no client class. (No main file holds several rooms: the build's FileLength check, at most 500
 * lines a file in every module; see main.file.max.lines in the root POM.)
 */
class NfsLayoutTest {
    private static final Path MAIN = Path.of("src/main/java/org/panamardma/nfs");
    /** The client's classes: the server takes the protocols from Nfs3, Nfs3Args, Mount3, Portmap and the types. */
    private static final List<String> CLIENT =
            List.of("Nfs3Client", "Nfs3FileCalls", "Nfs3Xdr", "Nfs3ResultsXdr", "MountClient", "PortmapClient");

    @Test
    void theServerUsesNoClientClass() throws IOException {
        List<String> offenders = SourceScan.where(
                MAIN.resolve("server"),
                Integer.MAX_VALUE,
                source -> CLIENT.stream()
                        .anyMatch(c -> source.matches(
                                "(?s).*\\b(import org\\.panamardma\\.nfs\\." + c + ";|" + c + "\\.).*")));
        assertEquals(List.of(), offenders);
    }
}
