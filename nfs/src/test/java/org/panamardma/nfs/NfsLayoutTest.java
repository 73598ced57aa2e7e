package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

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

    private static List<Path> sources(Path dir) throws IOException {
        assertTrue(Files.isDirectory(dir), "run from the nfs module directory: no " + dir.toAbsolutePath());
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theServerUsesNoClientClass() throws IOException {
        List<String> offenders = sources(MAIN.resolve("server")).stream()
                .filter(f -> CLIENT.stream()
                        .anyMatch(c -> read(f).matches(
                                        "(?s).*\\b(import org\\.panamardma\\.nfs\\." + c + ";|" + c + "\\.).*")))
                .map(Path::toString)
                .toList();
        assertEquals(List.of(), offenders);
    }
}
