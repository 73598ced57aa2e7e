package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReadListPositionsTest {

    private static ChunkLists reads(ReadSegment... segments) {
        return new ChunkLists(List.of(segments), List.of(), Optional.empty());
    }

    private static ReadSegment at(int position, int length) {
        return ReadSegment.of(position, 0xABCD, length, 0x1000);
    }

    private static void valid(RpcRdmaHeader header, long inlineLength) {
        try {
            ReadListPositions.validate(header, inlineLength);
        } catch (RpcRdmaHeaderException e) {
            throw new AssertionError("refused: " + e.getMessage(), e);
        }
    }

    private static void invalid(HeaderFault fault, RpcRdmaHeader header, long inlineLength) {
        RpcRdmaHeaderException e =
                assertThrows(RpcRdmaHeaderException.class, () -> ReadListPositions.validate(header, inlineLength));
        assertEquals(fault, e.fault(), e.getMessage());
        assertEquals(Optional.of(new RdmaError.ChunkError(header.xid(), 1)), e.responderReply(1));
    }

    @Test
    void chunkPositionsCountInlineBytesAndChunkExtentsWithRoundup() {
        // 64 inline bytes, then a 4097-byte item (extent 4100 with roundup), then the inline stream resumes at
        // XDR position 4164; a second item there has 64 inline bytes before it too, one further at 4164 + 36 has 100
        RdmaMsg msg = new RdmaMsg(1, 1, reads(at(64, 4097), at(4164 + 36, 8)));
        valid(msg, 100);
        invalid(HeaderFault.POSITION_BEYOND_MESSAGE, msg, 99);
        valid(new RdmaMsg(1, 1, reads(at(64, 4097))), 64); // a chunk may sit at the very end of the inline part
        invalid(HeaderFault.POSITION_BEYOND_MESSAGE, new RdmaMsg(1, 1, reads(at(64, 4097))), 63);
    }

    @Test
    void chunkMayFollowAnotherDirectly() {
        valid(new RdmaMsg(1, 1, reads(at(8, 5), at(16, 4))), 8);
    }

    @Test
    void chunkStartingInsideThePreviousOneIsRefused() {
        invalid(HeaderFault.POSITION_OVERLAPS_CHUNK, new RdmaMsg(1, 1, reads(at(64, 4097), at(4160, 8))), 1000);
    }

    @Test
    void misalignedPositionIsRefused() {
        invalid(HeaderFault.POSITION_MISALIGNED, new RdmaMsg(1, 1, reads(at(66, 8))), 1000);
    }

    @Test
    void decreasingPositionsInAHandBuiltHeaderAreRefused() {
        invalid(HeaderFault.POSITION_DECREASING, new RdmaMsg(1, 1, reads(at(64, 8), at(32, 8))), 1000);
    }

    @Test
    void positionZeroCarriesTheWholeMessageInNoMsgOnly() {
        // long call: 200-byte message in a position-zero chunk of two segments, plus a data chunk at 100
        RdmaNoMsg longCall = new RdmaNoMsg(1, 1, reads(at(0, 150), at(0, 50), at(100, 4000)));
        valid(longCall, 0);
        invalid(HeaderFault.POSITION_BEYOND_MESSAGE, new RdmaNoMsg(1, 1, reads(at(0, 200), at(204, 8))), 0);
        invalid(HeaderFault.MISPLACED_POSITION_ZERO, new RdmaMsg(1, 1, reads(at(0, 200))), 1000);
        invalid(HeaderFault.MISPLACED_POSITION_ZERO, new RdmaMsgp(1, 1, 4096, 1024, reads(at(0, 200))), 1000);
    }

    @Test
    void headersWithoutReadChunksPass() {
        valid(new RdmaDone(1, 1), 0);
        valid(new RdmaError.ChunkError(1, 1), 0);
        valid(new RdmaMsg(1, 1, ChunkLists.NONE), 0);
    }
}
