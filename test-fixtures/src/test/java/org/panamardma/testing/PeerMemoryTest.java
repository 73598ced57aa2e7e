package org.panamardma.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The played memory moves bytes where segments say, and refuses what a device would refuse. */
class PeerMemoryTest {
    private final PeerMemory memory = new PeerMemory();

    private static PeerMemory.Segment whole(PeerMemory.Registration r) {
        return new PeerMemory.Segment(r.handle(), r.length(), r.base());
    }

    @Test
    void aReadGathersTheSegmentsInOrderAndAWriteSpreadsOverThem() throws IOException {
        PeerMemory.Registration a = memory.register(new byte[] {1, 2, 3, 4});
        PeerMemory.Registration b = memory.register(new byte[3]);
        assertTrue(b.base() >= a.base() + a.length(), "regions do not overlap: " + a + ", " + b);
        byte[] into = new byte[3];
        long read = memory.read(
                List.of(
                        new PeerMemory.Segment(a.handle(), 2, a.base() + 2),
                        new PeerMemory.Segment(a.handle(), 1, a.base())),
                MemorySegment.ofArray(into));
        assertEquals(3, read);
        assertArrayEquals(new byte[] {3, 4, 1}, into);
        long written = memory.write(
                MemorySegment.ofArray(new byte[] {7, 8, 9}),
                List.of(
                        new PeerMemory.Segment(b.handle(), 0, b.base()),
                        new PeerMemory.Segment(a.handle(), 1, a.base() + 3),
                        whole(b)));
        assertEquals(3, written);
        assertArrayEquals(new byte[] {1, 2, 3, 7}, memory.contents(a.handle()), "a zero-length segment took nothing");
        assertArrayEquals(new byte[] {8, 9, 0}, memory.contents(b.handle()));
    }

    @Test
    void anAccessOutsideARegionOrToNoRegionFailsAsOnADevice() {
        PeerMemory.Registration a = memory.register(new byte[8]);
        MemorySegment buffer = MemorySegment.ofArray(new byte[8]);
        assertThrows(
                IOException.class,
                () -> memory.read(List.of(new PeerMemory.Segment(a.handle(), 8, a.base() + 1)), buffer));
        assertThrows(
                IOException.class,
                () -> memory.read(List.of(new PeerMemory.Segment(a.handle(), 1, a.base() - 1)), buffer.asSlice(0, 1)));
        assertThrows(
                IOException.class,
                () -> memory.write(buffer.asSlice(0, 1), List.of(new PeerMemory.Segment(a.handle() + 1, 1, a.base()))));
        IOException tooLong = assertThrows(
                IOException.class,
                () -> memory.write(buffer, List.of(new PeerMemory.Segment(a.handle(), 4, a.base()))));
        assertTrue(tooLong.getMessage().contains("write of 8 bytes into 4"), tooLong.getMessage());
    }

    @Test
    void contentsAreACopy() {
        PeerMemory.Registration a = memory.register(new byte[] {5});
        memory.contents(a.handle())[0] = 6;
        assertArrayEquals(new byte[] {5}, memory.contents(a.handle()));
    }
}
