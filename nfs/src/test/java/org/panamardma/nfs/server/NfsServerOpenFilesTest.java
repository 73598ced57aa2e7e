package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.NfsException;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.StableHow;

/**
 * The cache of open files READ, WRITE and COMMIT use ({@link OpenFiles}): one open per file and access however many
 * calls, and nothing it keeps lets a call do what the same call without it could not: permissions and a file's
 * immutable and append-only flags are checked on every call; a REMOVE closes the file's descriptors at once, an idle
 * one is closed after {@link OpenFiles#IDLE}; at most {@link OpenFiles#MAX_OPEN} stay open whatever a client does.
 */
class NfsServerOpenFilesTest {
    @TempDir
    Path dir;

    ServerFixture fx;
    Nfs3Client owner;

    @BeforeEach
    void start() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        owner = fx.client(ServerFixture.USER, ServerFixture.USER);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private OpenFiles files() {
        return fx.server.exportFs().openFiles();
    }

    private static NfsStat3 status(org.junit.jupiter.api.function.Executable e) {
        return assertThrows(NfsException.class, e).status();
    }

    private static MemorySegment bytes(String s) {
        return MemorySegment.ofArray(s.getBytes());
    }

    /** Descriptors of this process that lead to {@code file} (as /proc/self/fd shows them: a removed one "(deleted)"). */
    private static long descriptorsOf(Path file) throws IOException {
        String target = file.toAbsolutePath().toString();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                        try {
                            String to = Files.readSymbolicLink(fd).toString();
                            return to.equals(target) || to.equals(target + " (deleted)");
                        } catch (IOException e) {
                            return false; // closed meanwhile
                        }
                    })
                    .count();
        }
    }

    @Test
    void manyCallsOpenTheFileOncePerAccess() throws Exception {
        FileHandle3 h = owner.create(fx.root, "f", 0644).handle();
        long opensBefore = files().opens();
        for (int i = 0; i < 50; i++) {
            owner.write(h, i * 10L, bytes("0123456789"), StableHow.UNSTABLE);
        }
        for (int i = 0; i < 50; i++) {
            byte[] back = new byte[10];
            int n = owner.read(h, i * 10L, MemorySegment.ofArray(back)).count();
            assertEquals(10, n);
            assertArrayEquals("0123456789".getBytes(), back);
        }
        owner.commit(h, 0, 0);
        assertEquals(2, files().opens() - opensBefore, "one open for writing, one for reading (and COMMIT)");
        assertTrue(files().reuses() >= 99, "reuses: " + files().reuses());
        assertEquals(500, Files.size(fx.export.resolve("f")));
        assertEquals(2, descriptorsOf(fx.export.resolve("f")));
    }

    @Test
    void aRemoveClosesTheFilesDescriptorsAtOnce() throws Exception {
        FileHandle3 h = owner.create(fx.root, "gone", 0644).handle();
        owner.write(h, 0, MemorySegment.ofArray(new byte[1 << 20]), StableHow.FILE_SYNC);
        Path file = fx.export.resolve("gone");
        assertEquals(1, descriptorsOf(file));
        owner.remove(fx.root, "gone");
        assertEquals(0, descriptorsOf(file), "a removed file's space would stay taken while the server holds it open");
        assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> owner.write(h, 0, bytes("x"), StableHow.UNSTABLE)));
    }

    @Test
    void anIdleDescriptorIsClosed() throws Exception {
        FileHandle3 h = owner.create(fx.root, "idle", 0644).handle();
        owner.write(h, 0, bytes("data"), StableHow.UNSTABLE);
        Path file = fx.export.resolve("idle");
        assertEquals(1, descriptorsOf(file));
        long deadline = System.nanoTime() + OpenFiles.IDLE.toNanos() * 3;
        while (descriptorsOf(file) > 0 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(100);
        }
        assertEquals(0, descriptorsOf(file), "still open " + OpenFiles.IDLE.multipliedBy(3) + " after its last use");
        owner.write(h, 4, bytes("more"), StableHow.UNSTABLE); // opened again
        assertEquals("datamore", Files.readString(file));
    }

    @Test
    void noClientMakesTheServerHoldMoreThanTheBound() throws Exception {
        long opensBefore = files().opens();
        long start = System.nanoTime();
        for (int i = 0; i < OpenFiles.MAX_OPEN + 20; i++) {
            FileHandle3 h = owner.create(fx.root, "n" + i, 0644).handle();
            owner.write(h, 0, bytes("x"), StableHow.UNSTABLE);
            assertTrue(files().size() <= OpenFiles.MAX_OPEN, "open: " + files().size());
        }
        long took = System.nanoTime() - start;
        assertEquals(OpenFiles.MAX_OPEN + 20, files().opens() - opensBefore, "each new file opened once");
        if (took < OpenFiles.IDLE.toNanos()) {
            // none can have been closed for idleness yet: the bound alone closed the 20 beyond it
            assertEquals(OpenFiles.MAX_OPEN, files().size());
        } else {
            // a loaded host (rehearsal r56: 3.7 s): the first descriptors went idle and were closed, so the count
            // says nothing about the bound; the check inside the loop still held at every step
            System.out.println("the files took " + took / 1_000_000 + " ms, beyond the idle time " + OpenFiles.IDLE
                    + ": the count at the end is not checked");
        }
    }

    @Test
    void aPermissionTakenAwayIsTakenAwayAtOnce() throws Exception {
        FileHandle3 h = owner.create(fx.root, "shared", 0666).handle();
        Nfs3Client other = fx.client(ServerFixture.OTHER, ServerFixture.OTHER);
        other.write(h, 0, bytes("other was here"), StableHow.UNSTABLE); // its descriptor is cached now
        Files.setPosixFilePermissions(fx.export.resolve("shared"), PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> other.write(h, 0, bytes("OTHER"), StableHow.UNSTABLE)));
        assertEquals("other was here", Files.readString(fx.export.resolve("shared")));
        owner.write(h, 0, bytes("OWNER"), StableHow.UNSTABLE); // the owner still may
        assertEquals("OWNER was here", Files.readString(fx.export.resolve("shared")));
    }

    @Test
    void anImmutableOrAppendOnlyFileIsNotWrittenThroughADescriptorOpenedBefore() throws Exception {
        FileHandle3 h = owner.create(fx.root, "locked", 0644).handle();
        Path file = fx.export.resolve("locked");
        owner.write(h, 0, bytes("original"), StableHow.UNSTABLE); // a descriptor for writing is cached now
        assertEquals(1, descriptorsOf(file));
        for (String flag : List.of("+a", "+i")) {
            chattr(flag, file);
            try {
                assertEquals(
                        NfsStat3.NFS3ERR_PERM,
                        status(() -> owner.write(h, 0, bytes("REPLACED"), StableHow.UNSTABLE)),
                        "chattr " + flag);
                assertEquals("original", Files.readString(file), "chattr " + flag);
            } finally {
                chattr(flag.replace('+', '-'), file);
            }
        }
        owner.write(h, 0, bytes("changed!"), StableHow.UNSTABLE); // flags gone: writable again
        assertEquals("changed!", Files.readString(file));
    }

    /** {@code chattr} (e2fsprogs) on the file; where the file system has no such flags the test cannot run. */
    private static void chattr(String flag, Path file) throws Exception {
        List<String> command = new ArrayList<>(List.of("chattr", flag, file.toString()));
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw abortOrFail("no chattr here (e2fsprogs): " + e.getMessage());
        }
        String out = new String(p.getInputStream().readAllBytes()).strip();
        if (p.waitFor() != 0) {
            throw abortOrFail("chattr " + flag + " " + file + " failed (a file system without these flags?): " + out);
        }
    }

    private static RuntimeException abortOrFail(String why) {
        assertTrue(!"true".equals(System.getenv("CI")), "CI: " + why);
        Assumptions.abort(why);
        return new IllegalStateException(why);
    }
}
