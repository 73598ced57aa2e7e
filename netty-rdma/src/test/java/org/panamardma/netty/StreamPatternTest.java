package org.panamardma.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The device tests' stream pattern: filled and checked a word at a time, the same bytes as byte by byte. */
class StreamPatternTest {
    @Test
    void fillWritesTheStreamsBytesFromAnyPosition() {
        for (long p : new long[] {0, 1, 7, 8, 13, 1L << 33}) {
            for (int n : new int[] {0, 1, 7, 8, 9, 100}) {
                ByteBuf b = Unpooled.buffer(n);
                DeviceTestSupport.fill(b, 5, p, n);
                assertEquals(n, b.readableBytes());
                for (int i = 0; i < n; i++) {
                    assertEquals(DeviceTestSupport.pattern(5, p + i), b.getByte(i), "byte " + (p + i));
                }
                assertEquals(-1, DeviceTestSupport.mismatch(b, 0, 5, p, n));
            }
        }
    }

    @Test
    void mismatchFindsEveryChangedByteAndAnotherStream() {
        int n = 61;
        long p = 3;
        for (int at = 0; at < n; at++) {
            ByteBuf b = Unpooled.buffer(n);
            DeviceTestSupport.fill(b, 2, p, n);
            b.setByte(at, b.getByte(at) ^ 0x10);
            assertEquals(at, DeviceTestSupport.mismatch(b, 0, 2, p, n), "changed byte " + at);
        }
        ByteBuf other = Unpooled.buffer(n);
        DeviceTestSupport.fill(other, 3, p, n);
        assertEquals(0, DeviceTestSupport.mismatch(other, 0, 2, p, n), "connection 3's bytes are not connection 2's");
        ByteBuf shifted = Unpooled.buffer(n);
        DeviceTestSupport.fill(shifted, 2, p + 8, n);
        assertEquals(0, DeviceTestSupport.mismatch(shifted, 0, 2, p, n), "a stream 8 bytes ahead is caught");
    }
}
