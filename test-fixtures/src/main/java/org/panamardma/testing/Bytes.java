package org.panamardma.testing;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/** Test helpers: build expected byte images word by word, and show segments as hex. */
public final class Bytes {
    private Bytes() {}

    /**
     * Lays out 32-bit words as XDR does.
     *
     * @param words the words
     * @return the big-endian bytes of the given 32-bit words
     */
    public static byte[] words(int... words) {
        byte[] out = new byte[words.length * 4];
        for (int i = 0; i < words.length; i++) {
            out[4 * i] = (byte) (words[i] >>> 24);
            out[4 * i + 1] = (byte) (words[i] >>> 16);
            out[4 * i + 2] = (byte) (words[i] >>> 8);
            out[4 * i + 3] = (byte) words[i];
        }
        return out;
    }

    /**
     * Concatenates byte arrays.
     *
     * @param parts the arrays
     * @return the parts one after the other
     */
    public static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    /**
     * Copies a segment's bytes.
     *
     * @param segment the segment
     * @return the bytes of a segment
     */
    public static byte[] of(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * Formats bytes for assertion messages.
     *
     * @param bytes the bytes
     * @return the bytes in hex, separated by spaces
     */
    public static String hex(byte[] bytes) {
        return HexFormat.ofDelimiter(" ").formatHex(bytes);
    }
}
