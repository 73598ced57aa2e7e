package org.panamardma.nfs.server;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.NfsStat3;

/**
 * The server's file handles ({@code nfs_fh3}, at most 64 bytes, RFC 1813 section 2.5): what a handle holds, and the
 * check that this server issued it.
 *
 * <pre>
 *   0      version (1)
 *   1      depth: path components from the export's root to the file (0 for the root)
 *   2..5   export id
 *   6..13  inode number
 *   14..17 generation (from the birth time; tells a reused inode number from the file that had it)
 *   18..   hints: one byte per ancestor directory below the root (at most 38), a hash of its inode number
 *   last 8 HMAC-SHA256 of the bytes before, under the server's secret, truncated to 64 bits
 * </pre>
 *
 * <p>Why this shape. A handle must survive a restart of the server (RFC 1813 section 2.5: handles are persistent),
 * so it cannot be an index into memory; it cannot be a path (64 bytes is too short, and paths change under
 * RENAME); a kernel file handle ({@code open_by_handle_at}) needs CAP_DAC_READ_SEARCH, which a user-space server
 * should not require. The inode number and generation name the file; the hints let the server find it again
 * after a restart by walking down from the export's root, listing only the directories whose inode hash matches
 * at each depth ({@link ExportFs}), which is also why a handle can never name anything outside the export: a
 * handle is only ever resolved to a file reached from the export's root, without following links. The MAC makes
 * handles unforgeable: a client can only present handles this server (with this secret, kept in the state directory,
 * not in the export) gave out, so it cannot fabricate a handle for a file below a directory it may not search
 * (the {@code subtree_check} concern of knfsd) or guess inode numbers. A bad MAC or shape is NFS3ERR_BADHANDLE; a
 * handle of another export, or of a file that is gone, is NFS3ERR_STALE.
 */
final class FileHandles {
    static final int VERSION = 1;
    static final int HEADER = 18;
    static final int MAC_SIZE = 8;
    static final int MAX_HINTS = Nfs3.FHSIZE - HEADER - MAC_SIZE;
    static final int MAX_DEPTH = 255;

    /**
     * A decoded handle.
     *
     * @param depth components below the export's root
     * @param ino the inode number
     * @param generation the generation
     * @param hints the ancestors' inode hashes, outermost first; fewer than {@code depth - 1} if the path was deeper
     *              than {@link #MAX_HINTS} + 1
     */
    record Decoded(int depth, long ino, int generation, byte[] hints) {
        /** The hints a child of this directory gets: these, and this directory's own (unless this is the root). */
        byte[] childHints() {
            if (depth == 0 || hints.length >= MAX_HINTS || hints.length < depth - 1) {
                return hints;
            }
            byte[] h = Arrays.copyOf(hints, hints.length + 1);
            h[hints.length] = hint(ino);
            return h;
        }

        /** The hints of this file's parent directory. */
        byte[] parentHints() {
            int n = Math.min(hints.length, Math.max(0, depth - 2));
            return Arrays.copyOf(hints, n);
        }
    }

    private final SecretKeySpec key;
    private final int exportId;
    private final ConcurrentLinkedQueue<Mac> macs = new ConcurrentLinkedQueue<>();

    /**
     * @param secret the server's secret (32 bytes)
     * @param exportPath the export's absolute path: the export id is derived from it under the secret
     */
    FileHandles(byte[] secret, String exportPath) {
        this.key = new SecretKeySpec(secret.clone(), "HmacSHA256");
        byte[] name = ("export:" + exportPath).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.exportId = ByteBuffer.wrap(mac(name, 0, name.length)).getInt();
    }

    int exportId() {
        return exportId;
    }

    /** The one-byte hash of an ancestor's inode number. */
    static byte hint(long ino) {
        long x = ino;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        x ^= x >>> 29;
        return (byte) x;
    }

    /**
     * @throws IllegalArgumentException if {@code depth} exceeds {@link #MAX_DEPTH}
     */
    FileHandle3 encode(int depth, long ino, int generation, byte[] hints) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("depth " + depth + " exceeds " + MAX_DEPTH);
        }
        int n = Math.min(hints.length, Math.min(MAX_HINTS, Math.max(0, depth - 1)));
        ByteBuffer b = ByteBuffer.allocate(HEADER + n + MAC_SIZE);
        b.put((byte) VERSION)
                .put((byte) depth)
                .putInt(exportId)
                .putLong(ino)
                .putInt(generation)
                .put(hints, 0, n);
        byte[] bytes = b.array();
        System.arraycopy(mac(bytes, 0, HEADER + n), 0, bytes, HEADER + n, MAC_SIZE);
        return new FileHandle3(bytes);
    }

    /** @throws NfsError BADHANDLE if malformed or not issued by this server, STALE if of another export */
    Decoded decode(FileHandle3 handle) throws NfsError {
        byte[] b = handle.bytes();
        if (b.length < HEADER + MAC_SIZE || b[0] != VERSION) {
            throw new NfsError(
                    NfsStat3.NFS3ERR_BADHANDLE,
                    "handle of " + b.length + " bytes, version " + (b.length > 0 ? b[0] : -1));
        }
        int depth = Byte.toUnsignedInt(b[1]);
        int n = b.length - HEADER - MAC_SIZE;
        if (n != Math.min(MAX_HINTS, Math.max(0, depth - 1))) {
            throw new NfsError(NfsStat3.NFS3ERR_BADHANDLE, "handle of depth " + depth + " with " + n + " hints");
        }
        byte[] expected = mac(b, 0, HEADER + n);
        if (!MessageDigest.isEqual(Arrays.copyOf(expected, MAC_SIZE), Arrays.copyOfRange(b, HEADER + n, b.length))) {
            throw new NfsError(NfsStat3.NFS3ERR_BADHANDLE, "handle not issued by this server (MAC)");
        }
        ByteBuffer in = ByteBuffer.wrap(b, 2, HEADER - 2);
        if (in.getInt() != exportId) {
            throw new NfsError(NfsStat3.NFS3ERR_STALE, "handle of another export");
        }
        long ino = in.getLong();
        int generation = in.getInt();
        return new Decoded(depth, ino, generation, Arrays.copyOfRange(b, HEADER, HEADER + n));
    }

    /** HMAC-SHA256 of {@code data[from, from+length)} (full 32 bytes). */
    byte[] mac(byte[] data, int from, int length) {
        Mac mac = macs.poll();
        try {
            if (mac == null) {
                mac = Mac.getInstance("HmacSHA256");
                mac.init(key);
            }
            mac.update(data, from, length);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        } finally {
            if (mac != null) {
                macs.offer(mac);
            }
        }
    }
}
