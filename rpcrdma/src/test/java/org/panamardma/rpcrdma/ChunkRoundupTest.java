package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChunkRoundupTest {
    @Test
    void roundupOfEachResidue() {
        for (long length = 0; length < 64; length++) {
            long rounded = ChunkRoundup.roundUp(length);
            assertEquals(0, rounded % 4);
            assertTrue(rounded >= length && rounded - length < 4);
            assertEquals(rounded - length, ChunkRoundup.roundupBytes(length));
        }
    }

    @Test
    void inlineStreamResumesAtTheNextXdrBoundaryAfterAReadChunk() {
        // draft section 3.7: the roundup is never transferred, the receiver advances over it
        assertEquals(100 + 8, ChunkRoundup.nextXdrPosition(100, 5));
        assertEquals(100 + 8, ChunkRoundup.nextXdrPosition(100, 8)); // chunk already including roundup
        assertEquals(100, ChunkRoundup.nextXdrPosition(100, 0));
    }

    @Test
    void readChunkLengthsLeaveRoundupOutAndAcceptTheDraftForm() {
        assertEquals(4097, ChunkRoundup.readChunkLength(4097));
        assertTrue(ChunkRoundup.isValidReadChunkLength(4097, 4097));
        assertTrue(ChunkRoundup.isValidReadChunkLength(4097, 4100));
        assertFalse(ChunkRoundup.isValidReadChunkLength(4097, 4098));
        assertFalse(ChunkRoundup.isValidReadChunkLength(4097, 4104));
        assertFalse(ChunkRoundup.isValidReadChunkLength(4097, 4096));
    }

    @Test
    void writeChunkLengthsLeaveRoundupOutAndAcceptTheDraftForm() {
        assertEquals(13, ChunkRoundup.writeChunkReturnedLength(13));
        assertTrue(ChunkRoundup.isValidWriteChunkLength(13, 13));
        assertTrue(ChunkRoundup.isValidWriteChunkLength(13, 16));
        assertFalse(ChunkRoundup.isValidWriteChunkLength(13, 14));
        assertFalse(ChunkRoundup.isValidWriteChunkLength(16, 20));
    }
}
