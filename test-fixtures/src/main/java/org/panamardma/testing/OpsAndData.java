package org.panamardma.testing;

import java.util.Arrays;

/**
 * A decoder fuzz target's input read as a script: its first byte says how many operation bytes follow (at most what
 * there is), each a getter to call; the rest is the data the getters decode. The one format of the XDR decoders'
 * fuzz targets (oncrpc's {@code XdrDecoderFuzzTest}, oncrpc4j-rdma's {@code BoundedXdrFuzzTest}), so a seed found by
 * one means the same to the other.
 */
public final class OpsAndData {
    private final byte[] ops;
    private final byte[] data;

    private OpsAndData(byte[] ops, byte[] data) {
        this.ops = ops;
        this.data = data;
    }

    /**
     * Splits a fuzz input.
     *
     * @param input the fuzz input, not empty
     * @return its operations and its data
     * @throws IllegalArgumentException when {@code input} is empty (it has no count byte: the target skips it)
     */
    public static OpsAndData of(byte[] input) {
        if (input.length == 0) {
            throw new IllegalArgumentException("an empty input has no count of operations");
        }
        int n = Math.min(input[0] & 0xFF, input.length - 1);
        return new OpsAndData(Arrays.copyOfRange(input, 1, 1 + n), Arrays.copyOfRange(input, 1 + n, input.length));
    }

    /** {@return the operation bytes (the input's own copy: the caller may keep it)} */
    public byte[] ops() {
        return ops;
    }

    /** {@return the bytes to decode (the input's own copy: the caller may keep it)} */
    public byte[] data() {
        return data;
    }
}
