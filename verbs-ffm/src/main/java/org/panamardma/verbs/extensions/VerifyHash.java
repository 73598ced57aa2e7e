package org.panamardma.verbs.extensions;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.zip.CRC32C;

/** The integrity hash of an emulated RDMA VERIFY: the draft leaves the algorithm to the upper layer. */
public enum VerifyHash {
    /** CRC32C (Castagnoli), 4 bytes big-endian: fast, catches corruption, not tampering. The default. */
    CRC32C,
    /** SHA-256, 32 bytes. */
    SHA_256;

    /**
     * The digest of {@code data}.
     *
     * @param data the bytes hashed (read, not changed; any segment, heap or native)
     * @return a fresh array: 4 bytes big-endian for {@link #CRC32C}, 32 for {@link #SHA_256}
     */
    public byte[] digest(MemorySegment data) {
        ByteBuffer buffer = data.asByteBuffer();
        return switch (this) {
            case CRC32C -> {
                CRC32C crc = new CRC32C();
                crc.update(buffer);
                yield ByteBuffer.allocate(4).putInt((int) crc.getValue()).array();
            }
            case SHA_256 -> {
                try {
                    MessageDigest sha = MessageDigest.getInstance("SHA-256");
                    sha.update(buffer);
                    yield sha.digest();
                } catch (NoSuchAlgorithmException e) {
                    throw new AssertionError("every JDK has SHA-256", e);
                }
            }
        };
    }
}
