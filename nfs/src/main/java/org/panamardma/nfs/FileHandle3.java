package org.panamardma.nfs;

import java.util.Arrays;
import java.util.HexFormat;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * {@code nfs_fh3}: an opaque file handle of at most {@value Nfs3#FHSIZE} bytes (RFC 1813 section 2.5); the MOUNT
 * protocol's {@code fhandle3} has the same encoding (RFC 1813 appendix I).
 */
public final class FileHandle3 {
    private final byte[] bytes;

    /**
     * A handle holding a copy of {@code bytes}.
     *
     * @param bytes the handle as the server issued it, 0 to {@value Nfs3#FHSIZE} bytes
     * @throws IllegalArgumentException if longer than {@value Nfs3#FHSIZE} bytes
     */
    public FileHandle3(byte[] bytes) {
        if (bytes.length > Nfs3.FHSIZE) {
            throw new IllegalArgumentException("file handle of " + bytes.length + " bytes exceeds " + Nfs3.FHSIZE);
        }
        this.bytes = bytes.clone();
    }

    /** {@return a copy of the handle's bytes} */
    public byte[] bytes() {
        return bytes.clone();
    }

    /**
     * Encodes this as {@code nfs_fh3}: a length word, the bytes, padding.
     *
     * @param out where to encode
     */
    public void encodeTo(XdrEncoder out) {
        out.putOpaque(bytes, Nfs3.FHSIZE);
    }

    /**
     * Decodes {@code nfs_fh3}.
     *
     * @param in positioned at the handle
     * @return the handle
     * @throws org.panamardma.xdr.XdrException if truncated or longer than {@value Nfs3#FHSIZE} bytes
     */
    public static FileHandle3 decode(XdrDecoder in) {
        return new FileHandle3(in.getOpaqueBytes(Nfs3.FHSIZE));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileHandle3 that && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "fh:" + HexFormat.of().formatHex(bytes);
    }
}
