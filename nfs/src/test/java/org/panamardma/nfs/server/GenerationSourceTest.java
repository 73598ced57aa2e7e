package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.NfsStat3;

/**
 * The generation in a handle where the file system has no birth times (issue 25, item 6): the inode's own
 * generation ({@code FS_IOC_GETVERSION}). On 5c5f9a1 such a file system gave every file generation 0, so a handle of
 * a removed file named whatever file took its inode number next. Here the export is forced to take its generations
 * from the inodes (the host's ext4 has both), so the path a birth-time-less file system takes is the one tested.
 */
class GenerationSourceTest {
    @TempDir
    Path dir;

    private static final byte[] SECRET = new byte[32];

    private static FileHandle3 handleOf(ExportFs fs, String name) throws Exception {
        try (ExportFs.Node root = fs.root();
                ExportFs.Node n = fs.lookup(root, name)) {
            return fs.handleOf(n);
        }
    }

    @Test
    void inodeGenerationsTellAReusedInodeNumberFromTheFileThatHadIt() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        Files.createDirectories(export.resolve("sub"));
        Files.writeString(export.resolve("gone"), "old");
        try (ExportFs fs = ExportFs.open(export, SECRET, 1000, GenerationSource.INODE_VERSION)) {
            assertEquals(GenerationSource.INODE_VERSION, fs.generationSource());
            FileHandle3 sub = handleOf(fs, "sub");
            FileHandle3 old = handleOf(fs, "gone");
            long ino = (long) Files.getAttribute(export.resolve("gone"), "unix:ino");
            Files.delete(export.resolve("gone"));
            boolean reused = false;
            for (int i = 0; i < 100 && !reused; i++) {
                Files.writeString(export.resolve("new" + i), "new");
                reused = (long) Files.getAttribute(export.resolve("new" + i), "unix:ino") == ino;
                if (reused) {
                    FileHandle3 now = handleOf(fs, "new" + i);
                    assertNotEquals(
                            Arrays.toString(old.bytes()),
                            Arrays.toString(now.bytes()),
                            "the same inode number, another generation");
                }
            }
            System.out.println("inode " + ino + (reused ? " was reused" : " was not reused"));
            NfsError e = assertThrows(NfsError.class, () -> fs.resolve(old).close());
            assertEquals(NfsStat3.NFS3ERR_STALE, e.status());
            try (ExportFs.Node n = fs.resolve(sub)) {
                assertTrue(n.stat().isDirectory());
            }
        }
        // the generations are the file system's: another server instance issues the same handles
        try (ExportFs again = ExportFs.open(export, SECRET, 1000, GenerationSource.INODE_VERSION);
                ExportFs first = ExportFs.open(export, SECRET, 1000, GenerationSource.INODE_VERSION)) {
            assertArrayEquals(
                    handleOf(first, "sub").bytes(), handleOf(again, "sub").bytes());
        }
    }

    @Test
    void theBestSourceIsChosenAndAFileSystemWithNoneIsRefused() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        try (ExportFs fs = ExportFs.open(export, SECRET)) {
            assertEquals(GenerationSource.BIRTH_TIME, fs.generationSource(), "ext4 and tmpfs have birth times");
        }
        // /proc has neither birth times nor FS_IOC_GETVERSION
        int fd = Posix.openat(Posix.AT_FDCWD, "/proc/self", Posix.O_PATH | Posix.O_DIRECTORY, 0);
        try {
            Stat s = Posix.fstat(fd);
            if (!s.hasBtime()) {
                assertThrows(GenerationSource.Unsuitable.class, () -> GenerationSource.choose("/proc/self", fd, s));
            }
        } finally {
            Posix.close(fd);
        }
        Stat noBtime = Posix.fstat(Posix.AT_FDCWD);
        assertTrue(noBtime.withInodeVersion(1).generation()
                        != noBtime.withInodeVersion(2).generation()
                || noBtime.hasBtime());
    }
}
