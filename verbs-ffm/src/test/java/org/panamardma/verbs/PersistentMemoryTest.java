package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PersistentMemory#map} refuses what is not device-DAX before mapping anything (issue 25 item 7). At 5c5f9a1 it
 * mapped any path for any length: a 4 KiB file mapped for 2 MiB gave a segment whose pages beyond the file's end
 * raise SIGBUS when touched (a JVM crash), and /dev/zero or /dev/mem were mapped as "persistent memory".
 */
class PersistentMemoryTest {
    private static final long TWO_MIB = 2L << 20;

    @Test
    void aRegularFileIsRefusedWhateverItsLength(@TempDir Path dir) throws IOException {
        Path file = Files.write(dir.resolve("not-pmem"), new byte[4096]);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> PersistentMemory.map(file, TWO_MIB));
        assertTrue(e.getMessage().contains("not a character device"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PersistentMemory.map(file, 4096));
    }

    @Test
    void aCharacterDeviceThatIsNotDeviceDaxIsRefused() {
        Path zero = Path.of("/dev/zero");
        assumeTrue(Files.exists(zero), "a Linux host");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> PersistentMemory.map(zero, TWO_MIB));
        assertTrue(e.getMessage().contains("not device-DAX"), e.getMessage());
    }

    @Test
    void aMissingPathIsAnRdmaExceptionWithItsErrno(@TempDir Path dir) {
        RdmaException e = assertThrows(RdmaException.class, () -> PersistentMemory.map(dir.resolve("none"), TWO_MIB));
        assertTrue(e.getMessage().contains("ENOENT"), e.getMessage());
    }

    @Test
    void aLengthThatIsNotPositiveIsRefused(@TempDir Path dir) {
        assertThrows(IllegalArgumentException.class, () -> PersistentMemory.map(dir, 0));
    }
}
