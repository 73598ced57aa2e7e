package org.panamardma.nfs;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Builds expected XDR bytes by hand, word by word as RFC 1813's layouts read, independently of the encoder under
 * test: big-endian words, opaque data as length, bytes and zero padding to a multiple of four (RFC 4506).
 */
final class Wire {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static Wire of() {
        return new Wire();
    }

    /** Appends bytes written as hex; spaces are ignored ("0000 0001"). */
    Wire hex(String hex) {
        out.writeBytes(HexFormat.of().parseHex(hex.replace(" ", "")));
        return this;
    }

    Wire u32(long v) {
        for (int shift = 24; shift >= 0; shift -= 8) {
            out.write((int) (v >>> shift) & 0xFF);
        }
        return this;
    }

    Wire u64(long v) {
        return u32(v >>> 32).u32(v & 0xFFFF_FFFFL);
    }

    /** opaque&lt;&gt;: length word, bytes, zero padding. */
    Wire opaque(byte[] data) {
        u32(data.length);
        out.writeBytes(data);
        for (int i = data.length; i % 4 != 0; i++) {
            out.write(0);
        }
        return this;
    }

    Wire string(String s) {
        return opaque(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A {@code fattr3} of 21 words with the given type, size and fileid, every other field a recognizable value. */
    Wire fattr3(int type, long size, long fileid) {
        return u32(type)
                .u32(0644)
                .u32(1)
                .u32(1000)
                .u32(100)
                .u64(size)
                .u64(4096)
                .u32(0)
                .u32(0)
                .u64(77)
                .u64(fileid)
                .u32(1_700_000_000)
                .u32(1)
                .u32(1_700_000_001)
                .u32(2)
                .u32(1_700_000_002)
                .u32(3);
    }

    byte[] bytes() {
        return out.toByteArray();
    }

    MemorySegment segment() {
        return MemorySegment.ofArray(bytes());
    }
}
