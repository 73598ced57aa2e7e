package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.rpcrdma.RdmaSegment;

/** The played memory moves bytes where segments say, and refuses what a device would refuse. */
class InMemoryChunkTransfersTest {
    private final InMemoryChunkTransfers memory = new InMemoryChunkTransfers();

    @Test
    void aReadGathersTheSegmentsInOrderAndAWriteSpreadsOverThem() throws IOException {
        RdmaSegment a = memory.register(new byte[] {1, 2, 3, 4});
        RdmaSegment b = memory.registerEmpty(3);
        assertTrue(b.offset() >= a.offset() + a.length(), "regions do not overlap: " + a + ", " + b);
        byte[] into = new byte[3];
        memory.read(
                List.of(new RdmaSegment(a.handle(), 2, a.offset() + 2), new RdmaSegment(a.handle(), 1, a.offset())),
                MemorySegment.ofArray(into));
        assertArrayEquals(new byte[] {3, 4, 1}, into);
        memory.write(
                MemorySegment.ofArray(new byte[] {7, 8, 9}),
                List.of(new RdmaSegment(b.handle(), 0, b.offset()), new RdmaSegment(a.handle(), 1, a.offset() + 3), b));
        assertArrayEquals(new byte[] {1, 2, 3, 7}, memory.contents(a), "a zero-length segment took nothing");
        assertArrayEquals(new byte[] {8, 9, 0}, memory.contents(b));
        assertEquals(List.of("read 3", "write 3"), memory.transfers());
        assertEquals(3, memory.bytesWritten());
    }

    @Test
    void anAccessOutsideARegionOrToNoRegionFailsAsOnADevice() {
        RdmaSegment a = memory.registerEmpty(8);
        MemorySegment buffer = MemorySegment.ofArray(new byte[8]);
        assertThrows(
                IOException.class, () -> memory.read(List.of(new RdmaSegment(a.handle(), 8, a.offset() + 1)), buffer));
        assertThrows(
                IOException.class,
                () -> memory.read(List.of(new RdmaSegment(a.handle(), 1, a.offset() - 1)), buffer.asSlice(0, 1)));
        assertThrows(
                IOException.class,
                () -> memory.write(buffer.asSlice(0, 1), List.of(new RdmaSegment(a.handle() + 1, 1, a.offset()))));
        IOException tooLong = assertThrows(
                IOException.class, () -> memory.write(buffer, List.of(new RdmaSegment(a.handle(), 4, a.offset()))));
        assertTrue(tooLong.getMessage().contains("write of 8 bytes into 4"), tooLong.getMessage());
        assertEquals(List.of(), memory.transfers(), "a refused transfer is not logged as done");
        assertThrows(IllegalArgumentException.class, () -> memory.contents(new RdmaSegment(a.handle() + 1, 1, 0)));
    }

    @Test
    void contentsAreACopy() {
        RdmaSegment a = memory.register(new byte[] {5});
        memory.contents(a)[0] = 6;
        assertArrayEquals(new byte[] {5}, memory.contents(a));
    }
}
