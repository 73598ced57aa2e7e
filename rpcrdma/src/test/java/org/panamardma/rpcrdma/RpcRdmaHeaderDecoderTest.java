package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.panamardma.rpcrdma.GoldenHeaders.CHUNK_WORDS;
import static org.panamardma.rpcrdma.GoldenHeaders.concat;
import static org.panamardma.testing.Bytes.words;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class RpcRdmaHeaderDecoderTest {
    private static final int XID = 0x600D;
    /** Small limits so that tests can reach them: 2 read segments, 2 write chunks, 2 segments/chunk, 1 MiB. */
    private static final HeaderLimits SMALL = new HeaderLimits(2, 2, 2, 1 << 20);
    /** Limits that let lengths reach 2^31-1, to reach the overflow checks. */
    private static final HeaderLimits HUGE = new HeaderLimits(8, 8, Integer.MAX_VALUE, Integer.MAX_VALUE);

    private static int[] msg(int... body) {
        return concat(new int[] {XID, 1, 16, 0}, body); // xid, vers 1, credits 16, RDMA_MSG
    }

    private static RpcRdmaHeaderException refused(HeaderLimits limits, HeaderFault fault, long offset, int... words) {
        RpcRdmaHeaderException e = assertThrows(
                RpcRdmaHeaderException.class,
                () -> new RpcRdmaHeaderDecoder(limits).decode(MemorySegment.ofArray(words(words))));
        assertEquals(fault, e.fault(), e.getMessage());
        assertEquals(offset, e.offset(), e.getMessage());
        return e;
    }

    private static RpcRdmaHeaderException refused(HeaderFault fault, long offset, int... words) {
        return refused(HeaderLimits.DEFAULT, fault, offset, words);
    }

    @Test
    void everyTruncationIsRefusedAndAnsweredByWhatWasRead() {
        byte[] full = words(concat(new int[] {XID, 1, 16, 0}, CHUNK_WORDS));
        for (int cut = 0; cut < full.length; cut++) {
            MemorySegment prefix = MemorySegment.ofArray(full).asSlice(0, cut);
            RpcRdmaHeaderException e = assertThrows(
                    RpcRdmaHeaderException.class, () -> new RpcRdmaHeaderDecoder().decode(prefix), "prefix of " + cut);
            assertEquals(HeaderFault.TRUNCATED, e.fault(), e.getMessage());
            assertEquals(cut >= 4 ? OptionalInt.of(XID) : OptionalInt.empty(), e.xid());
            // no version read: drop; version 1 read: ERR_CHUNK (RFC 8166 section 4.5.2)
            assertEquals(
                    cut >= 8 ? Optional.of(new RdmaError.ChunkError(XID, 3)) : Optional.empty(),
                    e.responderReply(3),
                    "prefix of " + cut);
        }
    }

    @Test
    void otherVersionsAreAnsweredWithErrVersOneToOne() {
        RpcRdmaHeaderException e = refused(HeaderFault.VERSION_MISMATCH, 4, XID, 2, 16, 0, 0, 0, 0);
        assertEquals(Optional.of(new RdmaError.VersionMismatch(XID, 8, 1, 1)), e.responderReply(8));
        assertFalse(e.versionRecognized());
        // the rest of another version's header is not looked at: even a truncated one gets ERR_VERS
        RpcRdmaHeaderException truncated = refused(HeaderFault.VERSION_MISMATCH, 4, XID, 0);
        assertEquals(Optional.of(new RdmaError.VersionMismatch(XID, 8, 1, 1)), truncated.responderReply(8));
        assertTrue(truncated.getMessage().contains("version 0"), truncated.getMessage());
    }

    @Test
    void unknownMessageTypeIsErrChunk() {
        RpcRdmaHeaderException e = refused(HeaderFault.UNKNOWN_PROCEDURE, 12, XID, 1, 16, 5);
        assertEquals(Optional.of(new RdmaError.ChunkError(XID, 1)), e.responderReply(1));
        refused(HeaderFault.UNKNOWN_PROCEDURE, 12, XID, 1, 16, -1);
    }

    @Test
    void discriminatorsMustBeBooleans() {
        refused(HeaderFault.BAD_DISCRIMINATOR, 16, msg(2)); // read list
        refused(HeaderFault.BAD_DISCRIMINATOR, 20, msg(0, 3)); // write list
        refused(HeaderFault.BAD_DISCRIMINATOR, 24, msg(0, 0, 0xFFFFFFFF)); // reply chunk
    }

    @Test
    void readListLongerThanTheLimitIsRefusedAtTheExtraEntry() {
        int[] entry = {1, 0x40, 0xAA, 0x100, 0, 0x1000};
        int[] three = concat(concat(entry, entry), concat(entry, new int[] {0, 0, 0}));
        // third entry's position word at 16 + 2 * 24 + 4
        RpcRdmaHeaderException e = refused(SMALL, HeaderFault.TOO_MANY_READ_SEGMENTS, 16 + 48 + 4, msg(three));
        assertTrue(e.getMessage().contains("more than 2"), e.getMessage());
        assertEquals(Optional.of(new RdmaError.ChunkError(XID, 1)), e.responderReply(1));
    }

    @Test
    void writeListLongerThanTheLimitIsRefused() {
        int[] chunk = {1, 1, 0xBB, 0x100, 0, 0x2000};
        refused(
                SMALL,
                HeaderFault.TOO_MANY_WRITE_CHUNKS,
                16 + 4 + 48 + 4,
                msg(concat(new int[] {0}, concat(concat(chunk, chunk), concat(chunk, new int[] {0, 0})))));
    }

    @Test
    void segmentCountsOverTheLimitAreRefusedBeforeAllocation() {
        // write chunk declaring 3 segments, limit 2
        refused(SMALL, HeaderFault.TOO_MANY_SEGMENTS, 24, msg(0, 1, 3));
        // reply chunk declaring 2^32-1 segments, with the default limit of 64
        refused(HeaderFault.TOO_MANY_SEGMENTS, 28, msg(0, 0, 1, 0xFFFFFFFF));
        // with no practical limit, a count the message cannot hold is refused before a list of that size exists
        RpcRdmaHeaderException e = refused(HUGE, HeaderFault.TRUNCATED, 24, msg(0, 1, 0x7FFFFFFF, 0xBB));
        assertTrue(e.getMessage().contains("2147483647 segments"), e.getMessage());
    }

    @Test
    void segmentsLongerThanTheLimitAreRefused() {
        refused(SMALL, HeaderFault.SEGMENT_TOO_LONG, 28, msg(1, 0, 0xAA, (1 << 20) + 1, 0, 0, 0, 0, 0));
        // 2^31 and above is too long even when the limit is 2^31-1: lengths are unsigned on the wire
        refused(HUGE, HeaderFault.SEGMENT_TOO_LONG, 32, msg(0, 1, 1, 0xBB, 0x80000000, 0, 0, 0, 0));
        // exactly at the limit is fine
        assertDoesNotRefuse(SMALL, msg(1, 0, 0xAA, 1 << 20, 0, 0, 0, 0, 0));
    }

    private static void assertDoesNotRefuse(HeaderLimits limits, int... words) {
        try {
            new RpcRdmaHeaderDecoder(limits).decode(MemorySegment.ofArray(words(words)));
        } catch (RpcRdmaHeaderException e) {
            throw new AssertionError("refused: " + e.getMessage(), e);
        }
    }

    @Test
    void chunkLengthsThatOverflowAreRefused() {
        // one Write chunk of two 2^31-1 segments
        refused(
                HUGE,
                HeaderFault.LENGTH_OVERFLOW,
                44,
                msg(0, 1, 2, 0xB1, 0x7FFFFFFF, 0, 0, 0xB2, 0x7FFFFFFF, 0, 0, 0, 0));
        // one Read chunk (same position) of two 2^31-1 segments
        RpcRdmaHeaderException read = refused(
                HUGE,
                HeaderFault.LENGTH_OVERFLOW,
                68,
                msg(1, 8, 0xA1, 0x7FFFFFFF, 0, 0, 1, 8, 0xA2, 0x7FFFFFFF, 0, 0, 0, 0, 0));
        assertTrue(read.getMessage().contains("position 8"), read.getMessage());
        // the same lengths in two different Read chunks do not overflow any one chunk
        assertDoesNotRefuse(HUGE, msg(1, 8, 0xA1, 0x7FFFFFFF, 0, 0, 1, 12, 0xA2, 0x7FFFFFFF, 0, 0, 0, 0, 0));
    }

    @Test
    void decreasingReadPositionsAreRefused() {
        RpcRdmaHeaderException e = refused(
                HeaderFault.POSITION_DECREASING, 44, msg(1, 0x40, 0xA1, 8, 0, 0, 1, 0x20, 0xA2, 8, 0, 0, 0, 0, 0));
        assertTrue(e.getMessage().contains("32 after position 64"), e.getMessage());
    }

    @Test
    void positionsBeyondAnyMessageAreRefusedWhileDecoding() {
        refused(HeaderFault.POSITION_BEYOND_MESSAGE, 20, msg(1, 0x80000000, 0xA1, 8, 0, 0, 0, 0, 0));
    }

    @Test
    void noMsgWithoutAnyChunkIsRefused() {
        refused(HeaderFault.NOMSG_WITHOUT_CHUNKS, 16, XID, 1, 16, 1, 0, 0, 0);
    }

    @Test
    void errVersMustCarryItsRange() {
        refused(HeaderFault.TRUNCATED, 24, XID, 1, 16, 4, 1, 1);
    }
}
