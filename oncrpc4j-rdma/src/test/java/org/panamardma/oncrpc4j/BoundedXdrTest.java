package org.panamardma.oncrpc4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.dcache.oncrpc4j.xdr.BadXdrOncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;

/** {@link BoundedXdr}'s refusals, one per finding of its fuzz target ({@link BoundedXdrFuzzTest}). */
class BoundedXdrTest {
    private static Xdr decoding(byte[] call) {
        Xdr xdr = new BoundedXdr(OncRpcBridge.wrap(MemorySegment.ofArray(call)), MemoryManager.DEFAULT_MEMORY_MANAGER);
        xdr.beginDecoding();
        return xdr;
    }

    @Test
    void aByteBufferWhoseLengthAndPaddingWrapNegativeIsRefused() {
        // 2^31 - 2 plus 2 bytes of padding is negative as an int: oncrpc4j's own check let it through and threw
        // IllegalArgumentException from ByteBuffer.limit (seed-byte-buffer-overflowing-length)
        byte[] call = {0x7f, -1, -1, -2, 'a', 'b', 'c', 'd'};
        assertThrows(BadXdrOncRpcException.class, () -> decoding(call).xdrDecodeByteBuffer());
    }

    @Test
    void aByteBufferThatFitsIsDecodedAsOncrpc4jDoes() throws BadXdrOncRpcException {
        ByteBuffer b = decoding(new byte[] {0, 0, 0, 3, 'a', 'b', 'c', 0}).xdrDecodeByteBuffer();
        assertEquals(ByteBuffer.wrap(new byte[] {'a', 'b', 'c'}), b);
    }
}
