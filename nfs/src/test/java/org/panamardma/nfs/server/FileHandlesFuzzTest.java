package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.testing.AllocationBudget;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrException;

/**
 * Fuzzes file handles (nfs/FUZZING.md): {@link FileHandle3#decode} of an {@code nfs_fh3}, then
 * {@link FileHandles#decode} (shape, MAC, export id), then {@link ExportFs#resolve} against a small export tree.
 * Byte 0 chooses: bit 0 clear, the rest is an XDR {@code nfs_fh3} as a client sends it (the MAC almost always
 * refuses it: BADHANDLE); bit 0 set, the rest is a handle's body that the target signs with the server's secret
 * and export id, as if the client knew the secret, so that what lies behind the MAC (depth, hints, the walk they
 * steer) is fuzzed too; with bit 1 set as well, byte 1 picks a file of the tree whose inode number and generation
 * replace the handle's, so that the walk along fuzzed hints can find something. Typed refusals: {@link XdrException}
 * (GARBAGE_ARGS) and {@link NfsError} BADHANDLE or STALE; a handle that decodes must encode back to its bytes, and
 * a resolved file must be the handle's file, reached from the export's root, within the walk's budget.
 */
class FileHandlesFuzzTest {
    private static final byte[] SECRET = new byte[32];
    private static final FileHandles HANDLES;
    private static final ExportFs FS;
    private static final List<Stat> FILES = new ArrayList<>();

    static {
        Arrays.fill(SECRET, (byte) 7);
        try {
            Path export = Files.createTempDirectory("panama-fh-fuzz-");
            export.toFile().deleteOnExit();
            Path p = export;
            for (int depth = 0; depth < 6; depth++) {
                p = Files.createDirectories(p.resolve("d" + depth));
                Files.writeString(p.resolve("f"), "x");
                Files.writeString(export.resolve("top" + depth), "y");
            }
            FS = ExportFs.open(export, SECRET);
            HANDLES = FS.handles();
            try (var files = Files.walk(export)) {
                for (Path f : files.toList()) {
                    FILES.add(Posix.statx(Posix.AT_FDCWD, ExportFs.bytes(f.toString()), Posix.AT_SYMLINK_NOFOLLOW));
                }
            }
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The decode copies the handle (at most 64 bytes) twice and computes one HMAC-SHA256 (a few small arrays); a
     * refusal adds its exception. A constant: 64 KiB, whatever the input's length (a longer nfs_fh3 is refused by
     * its length before anything is copied).
     */
    private static final long BOUND = 64 << 10;

    @FuzzTest
    void decode(byte[] input) throws Exception {
        if (input.length < 2) {
            return;
        }
        FileHandle3 handle;
        if ((input[0] & 1) == 0) {
            try {
                handle = FileHandle3.decode(
                        new XdrDecoder(MemorySegment.ofArray(Arrays.copyOfRange(input, 1, input.length))));
            } catch (XdrException refused) {
                return;
            }
        } else {
            handle = signed(input);
            if (handle == null) {
                return;
            }
        }
        FileHandle3 h = handle;
        FileHandles.Decoded[] decoded = new FileHandles.Decoded[1];
        AllocationBudget.within("FileHandles.decode", BOUND, () -> {
            try {
                decoded[0] = HANDLES.decode(h);
            } catch (NfsError e) {
                assertTrue(
                        e.status() == NfsStat3.NFS3ERR_BADHANDLE || e.status() == NfsStat3.NFS3ERR_STALE,
                        e.getMessage());
                decoded[0] = null;
            }
        });
        if (decoded[0] == null) {
            return;
        }
        FileHandles.Decoded d = decoded[0];
        assertArrayEquals(
                h.bytes(),
                HANDLES.encode(d.depth(), d.ino(), d.generation(), d.hints()).bytes(),
                "a handle that decodes encodes back to its bytes");
        long walkedBefore = FS.walkedEntries();
        try (ExportFs.Node n = FS.resolve(h)) {
            assertEquals(d.ino(), n.stat().ino());
            assertEquals(d.generation(), n.stat().generation());
            assertTrue(FS.sameFileSystem(n.stat()));
        } catch (NfsError e) {
            assertEquals(NfsStat3.NFS3ERR_STALE, e.status(), e.getMessage());
        }
        assertTrue(FS.walkedEntries() - walkedBefore <= ExportFs.WALK_BUDGET, "the walk kept its budget");
    }

    /** A handle of the fuzzer's body (version, depth, inode, generation, hints), with this export's id and MAC. */
    private static FileHandle3 signed(byte[] input) {
        int bodyStart = (input[0] & 2) != 0 ? 2 : 1;
        byte[] body = Arrays.copyOfRange(
                input, bodyStart, Math.min(input.length, bodyStart + FileHandles.HEADER + FileHandles.MAX_HINTS));
        if (body.length < FileHandles.HEADER) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(body);
        b.putInt(2, HANDLES.exportId());
        if (bodyStart == 2) {
            Stat s = FILES.get((input[1] & 0xFF) % FILES.size());
            b.putLong(6, s.ino()).putInt(14, s.generation());
        }
        byte[] mac = HANDLES.mac(body, 0, body.length);
        byte[] bytes = Arrays.copyOf(body, body.length + FileHandles.MAC_SIZE);
        System.arraycopy(mac, 0, bytes, body.length, FileHandles.MAC_SIZE);
        return new FileHandle3(bytes);
    }
}
