package org.panamardma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The layering tests' scan finds an offender at the depth asked, and refuses a directory that is not there. */
class SourceScanTest {
    @TempDir
    Path dir;

    @Test
    void findsTheFilesThatMentionWhatIsForbiddenWithinTheDepth() throws IOException {
        Files.writeString(dir.resolve("Clean.java"), "class Clean {}");
        Files.writeString(dir.resolve("Dirty.java"), "import org.example.Forbidden;");
        Files.writeString(dir.resolve("notes.txt"), "org.example.Forbidden");
        Path sub = Files.createDirectories(dir.resolve("sub"));
        Files.writeString(sub.resolve("Deep.java"), "class Deep { org.example.Forbidden f; }");

        assertEquals(
                List.of(dir.resolve("Dirty.java").toString()), SourceScan.mentioning(dir, 1, "org.example.Forbidden"));
        assertEquals(
                List.of(
                        dir.resolve("Dirty.java").toString(),
                        sub.resolve("Deep.java").toString()),
                SourceScan.mentioning(dir, Integer.MAX_VALUE, "org.example.Forbidden"));
        assertEquals(List.of(), SourceScan.mentioning(dir, Integer.MAX_VALUE, "org.example.Other"));
    }

    @Test
    void aDirectoryThatIsNotThereIsAnErrorNotAPass() {
        IOException e =
                assertThrows(IOException.class, () -> SourceScan.mentioning(dir.resolve("missing"), 1, "anything"));
        assertTrue(e.getMessage().contains("no directory"), e.getMessage());
    }
}
