package org.panamardma.verbs.trusted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class SpansTest {
    @Test
    void coversOverlappingAndTouchingSegmentsOfOneArenaInTheirScope() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(4096);
            buffer.set(ValueLayout.JAVA_BYTE, 4095, (byte) 7);
            MemorySegment span = Spans.union(buffer.asSlice(1000, 500), buffer.asSlice(0, 1200));
            assertEquals(buffer.address(), span.address());
            assertEquals(1500, span.byteSize());
            MemorySegment touching = Spans.union(buffer.asSlice(2048, 2048), buffer.asSlice(0, 2048));
            assertEquals(buffer.address(), touching.address());
            assertEquals(4096, touching.byteSize());
            assertEquals(7, touching.get(ValueLayout.JAVA_BYTE, 4095), "the caller's memory");
            assertEquals(buffer.scope(), touching.scope(), "freed with the caller's arena");
            assertTrue(Spans.union(buffer.asSlice(0, 10).asReadOnly(), buffer.asSlice(5, 10))
                    .isReadOnly());
            assertFalse(
                    Spans.union(buffer.asSlice(0, 10), buffer.asSlice(5, 10)).isReadOnly());
        }
    }

    @Test
    void refusesAGapAnotherArenaHeapMemoryAndAClosedArena() {
        try (Arena one = Arena.ofConfined();
                Arena other = Arena.ofConfined()) {
            MemorySegment buffer = one.allocate(4096);
            assertThrows(
                    IllegalArgumentException.class,
                    () -> Spans.union(buffer.asSlice(0, 100), buffer.asSlice(101, 100)),
                    "a gap of one byte");
            assertThrows(
                    IllegalArgumentException.class, () -> Spans.union(buffer.asSlice(0, 100), other.allocate(100)));
            assertThrows(
                    IllegalArgumentException.class,
                    () -> Spans.union(MemorySegment.ofArray(new byte[8]), MemorySegment.ofArray(new byte[8])));
        }
        Arena closed = Arena.ofShared();
        MemorySegment gone = closed.allocate(64);
        closed.close();
        assertThrows(IllegalStateException.class, () -> Spans.union(gone.asSlice(0, 8), gone.asSlice(8, 8)));
    }
}
