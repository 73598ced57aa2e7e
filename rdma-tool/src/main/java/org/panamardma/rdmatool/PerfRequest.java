package org.panamardma.rdmatool;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The perf wire format. This record is the client's connect private data: what to run, how many unmeasured warm-up
 * iterations first, and where its buffer is (32 bytes: under RoCE's 56); {@link #encodeReply} is the server's
 * accept private data, where its buffer is (16 bytes).
 */
record PerfRequest(
        Perf.Test test, int iters, int minSize, int maxSize, boolean allSizes, long address, int rkey, int warmup) {
    static final byte MAGIC_REQUEST = 'P';
    static final byte MAGIC_REPLY = 'p';

    byte[] encode() {
        return ByteBuffer.allocate(32)
                .put(MAGIC_REQUEST)
                .put((byte) 2)
                .put((byte) test.ordinal())
                .put((byte) (allSizes ? 1 : 0))
                .putInt(iters)
                .putInt(minSize)
                .putInt(maxSize)
                .putLong(address)
                .putInt(rkey)
                .putInt(warmup)
                .array();
    }

    static PerfRequest decode(byte[] b) {
        if (b.length < 32 || b[0] != MAGIC_REQUEST || b[1] != 2 || b[2] < 0 || b[2] >= Perf.Test.values().length) {
            return null;
        }
        ByteBuffer bb = ByteBuffer.wrap(b);
        return new PerfRequest(
                Perf.Test.values()[b[2]],
                bb.getInt(4),
                bb.getInt(8),
                bb.getInt(12),
                b[3] == 1,
                bb.getLong(16),
                bb.getInt(24),
                bb.getInt(28));
    }

    List<Integer> sizes() {
        return Perf.sizes(test, allSizes, minSize);
    }

    static byte[] encodeReply(long address, int rkey) {
        return ByteBuffer.allocate(16)
                .put(MAGIC_REPLY)
                .put((byte) 1)
                .putShort((short) 0)
                .putLong(address)
                .putInt(rkey)
                .array();
    }
}
