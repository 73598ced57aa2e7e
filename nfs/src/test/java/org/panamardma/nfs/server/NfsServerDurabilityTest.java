package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.NfsException;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.Sattr3;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.WriteResult;

/**
 * Durability (issue 25, item 6): a {@code sync} export commits the metadata a procedure changed before it replies,
 * as knfsd's {@code commit_metadata}, and a failed write or sync changes the write verifier, as knfsd's
 * {@code nfsd_reset_write_verifier}, so that clients send again what they wrote UNSTABLE. On 5c5f9a1 neither
 * happened (no directory fsync, a verifier fixed for the server's life).
 */
class NfsServerDurabilityTest {
    @TempDir
    Path dir;

    ServerFixture fx;
    private Path mounted;

    @AfterEach
    void stop() throws Exception {
        if (fx != null) {
            fx.close();
        }
        if (mounted != null) {
            assertEquals(
                    0,
                    new ProcessBuilder("umount", mounted.toString())
                            .inheritIO()
                            .start()
                            .waitFor());
        }
    }

    @Test
    void aSyncExportCommitsWhatEachChangeTouchedAndAnAsyncOneDoesNot() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        ExportFs fs = fx.server.exportFs();
        long c0 = fs.commits();
        FileHandle3 f = nfs.create(fx.root, "f", 0644).handle();
        assertEquals(2, fs.commits() - c0, "CREATE: the new file and its directory");
        FileHandle3 d = nfs.mkdir(fx.root, "d", Sattr3.mode(0755)).handle();
        assertEquals(4, fs.commits() - c0, "MKDIR: likewise");
        nfs.setattr(f, Sattr3.mode(0600), null);
        assertEquals(5, fs.commits() - c0, "SETATTR: the file");
        nfs.rename(fx.root, "f", d, "g");
        assertEquals(7, fs.commits() - c0, "RENAME: both directories");
        nfs.remove(d, "g");
        assertEquals(8, fs.commits() - c0, "REMOVE: the directory");
        nfs.symlink(fx.root, "l", "d");
        assertEquals(9, fs.commits() - c0, "SYMLINK: the directory");
        fx.close();

        fx = ServerFixture.restart(fx.export, fx.state, ExportOptions.DEFAULTS.withSync(false));
        Nfs3Client again = fx.client(ServerFixture.USER, ServerFixture.USER);
        long a0 = fx.server.exportFs().commits();
        again.create(fx.root, "h", 0644);
        again.remove(fx.root, "h");
        assertEquals(0, fx.server.exportFs().commits() - a0, "async: nothing committed before the reply");
    }

    /**
     * A WRITE that fails for lack of space (a 256 KiB tmpfs as the export) changes the verifier: the UNSTABLE data
     * a client wrote before must be sent again.
     */
    @Test
    void aFailedWriteChangesTheWriteVerifier() throws Exception {
        mounted = Files.createDirectories(dir.resolve("export"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mounted.toString())
                .inheritIO()
                .start();
        assertEquals(0, mount.waitFor(), "mounting a small tmpfs (the tests run as root)");
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        FileHandle3 f = nfs.create(fx.root, "f", 0644).handle();
        WriteResult first = nfs.write(f, 0, MemorySegment.ofArray(new byte[64 << 10]), StableHow.UNSTABLE);
        assertEquals(first.verifier(), nfs.commit(f, 0, 0).verifier(), "no failure: the same verifier");
        NfsException full = assertThrows(
                NfsException.class,
                () -> nfs.write(f, 64 << 10, MemorySegment.ofArray(new byte[512 << 10]), StableHow.UNSTABLE));
        assertEquals(NfsStat3.NFS3ERR_NOSPC, full.status());
        WriteResult after = nfs.write(f, 0, MemorySegment.ofArray(new byte[4096]), StableHow.UNSTABLE);
        assertNotEquals(first.verifier(), after.verifier(), "a new verifier after the failure");
        assertEquals(after.verifier(), nfs.commit(f, 0, 0).verifier());
    }
}
