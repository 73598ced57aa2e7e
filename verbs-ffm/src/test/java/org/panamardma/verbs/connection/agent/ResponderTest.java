package org.panamardma.verbs.connection.agent;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.Access;

/** The responder's checks (each with the RFC's error and memory untouched), exactly-once execution, its bounds. */
class ResponderTest {
    static final int ATOMIC = 0x100;
    static final int NO_ATOMIC = 0x200;
    private Arena arena;
    private MemorySegment region;
    private MemorySegment other;
    private Map<Integer, AtomicTargets.Target> registered;
    private Responder responder;

    @BeforeEach
    void setUp() {
        arena = Arena.ofConfined();
        region = arena.allocate(64, 4096);
        other = arena.allocate(64, 8);
        registered = new HashMap<>();
        registered.put(
                ATOMIC, new AtomicTargets.SegmentTarget(region, Set.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC)));
        registered.put(
                NO_ATOMIC,
                new AtomicTargets.SegmentTarget(
                        other, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE)));
        responder = new Responder(registered::get, 4);
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private long at(int offset) {
        return region.address() + offset;
    }

    private TerminateError refused(AtomicRequest r) {
        byte[] before = region.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        byte[] otherBefore = other.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        AgentProtocolException e = assertThrows(AgentProtocolException.class, () -> responder.handle(r, 0));
        assertEquals(r.requestId(), e.requestId(), "the Terminate names the request");
        assertArrayEquals(before, region.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), "memory untouched");
        assertArrayEquals(otherBefore, other.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), "memory untouched");
        return e.error();
    }

    @Test
    void executesInSequenceAndAnswersTheOriginalValue() throws Exception {
        region.set(JAVA_LONG, 8, 41);
        assertEquals(
                new Responder.Answer(41, true), responder.handle(AtomicRequest.fetchAdd(0, ATOMIC, at(8), 1, 0), 0));
        assertEquals(
                new Responder.Answer(42, true),
                responder.handle(AtomicRequest.compareSwap(1, ATOMIC, at(8), 42, -1, 100, -1), 0));
        assertEquals(100, region.get(JAVA_LONG, 8));
        assertEquals(2, responder.executed());
    }

    @Test
    void anUnregisteredStagIsInvalidStag() {
        assertEquals(TerminateError.INVALID_STAG, refused(AtomicRequest.fetchAdd(0, 0x999, at(0), 1, 0)));
    }

    @Test
    void aRegionWithoutRemoteAtomicRightsIsAnAccessRightsViolation() {
        assertEquals(
                TerminateError.ACCESS_RIGHTS, refused(AtomicRequest.fetchAdd(0, NO_ATOMIC, other.address(), 1, 0)));
    }

    @Test
    void anyByteOutsideTheRegionIsABaseOrBoundsViolation() {
        assertEquals(TerminateError.BASE_OR_BOUNDS, refused(AtomicRequest.fetchAdd(0, ATOMIC, at(64), 1, 0)));
        assertEquals(TerminateError.BASE_OR_BOUNDS, refused(AtomicRequest.fetchAdd(0, ATOMIC, at(-8), 1, 0)));
        assertEquals(TerminateError.BASE_OR_BOUNDS, refused(AtomicRequest.fetchAdd(0, ATOMIC, at(60), 1, 0)));
        assertEquals(TerminateError.BASE_OR_BOUNDS, refused(AtomicRequest.fetchAdd(0, ATOMIC, -8, 1, 0)));
        assertEquals(TerminateError.BASE_OR_BOUNDS, refused(AtomicRequest.fetchAdd(0, ATOMIC, Long.MAX_VALUE, 1, 0)));
        assertEquals(TerminateError.BASE_OR_BOUNDS, refused(AtomicRequest.fetchAdd(0, ATOMIC, 0, 1, 0)));
    }

    @Test
    void aMisalignedAddressIsSection82sCatastrophicErrorOfTheStream() {
        for (int misalignment = 1; misalignment < 8; misalignment++) {
            assertEquals(
                    TerminateError.CATASTROPHIC_STREAM,
                    refused(AtomicRequest.compareSwap(0, ATOMIC, at(8 + misalignment), 0, -1, 1, -1)));
        }
    }

    @Test
    void theLastWordOfTheRegionIsInside() throws Exception {
        assertEquals(
                0,
                responder
                        .handle(AtomicRequest.fetchAdd(0, ATOMIC, at(56), 5, 0), 0)
                        .originalValue());
        assertEquals(5, region.get(JAVA_LONG, 56));
    }

    @Test
    void aRetransmittedRequestIsAnsweredFromTheRecordAndNotExecutedAgain() throws Exception {
        AtomicRequest first = AtomicRequest.fetchAdd(0, ATOMIC, at(0), 10, 0);
        AtomicRequest second = AtomicRequest.fetchAdd(1, ATOMIC, at(0), 10, 0);
        assertEquals(new Responder.Answer(0, true), responder.handle(first, 0));
        assertEquals(new Responder.Answer(10, true), responder.handle(second, 0));
        assertEquals(new Responder.Answer(0, false), responder.handle(first, 0));
        assertEquals(new Responder.Answer(10, false), responder.handle(second, 0));
        assertEquals(20, region.get(JAVA_LONG, 0), "each executed exactly once");
        assertEquals(2, responder.executed());
        assertEquals(2, responder.replayed());
        // the same identifier with other contents is no retransmission
        assertEquals(TerminateError.MSN_RANGE, refused(AtomicRequest.fetchAdd(1, ATOMIC, at(0), 11, 0)));
    }

    @Test
    void requestIdentifiersOutOfSequenceAreAnInvalidMsnRange() throws Exception {
        assertEquals(TerminateError.MSN_RANGE, refused(AtomicRequest.fetchAdd(1, ATOMIC, at(0), 1, 0)));
        assertEquals(TerminateError.MSN_RANGE, refused(AtomicRequest.fetchAdd(0xffff_ffffL, ATOMIC, at(0), 1, 0)));
        for (int id = 0; id < 10; id++) {
            responder.handle(AtomicRequest.fetchAdd(id, ATOMIC, at(0), 1, 0), 0);
        }
        // more than IRD (4) back: no longer recorded
        assertEquals(TerminateError.MSN_RANGE, refused(AtomicRequest.fetchAdd(5, ATOMIC, at(0), 1, 0)));
        assertEquals(
                new Responder.Answer(9, false), responder.handle(AtomicRequest.fetchAdd(9, ATOMIC, at(0), 1, 0), 0));
        assertEquals(
                new Responder.Answer(6, false), responder.handle(AtomicRequest.fetchAdd(6, ATOMIC, at(0), 1, 0), 0));
        assertEquals(10, region.get(JAVA_LONG, 0));
    }

    @Test
    void requestIdentifiersWrapAt32Bits() throws Exception {
        Responder r = new Responder(registered::get, 3);
        // walk the sequence to the wrap: the identifiers are 32 bits (RFC 7306 Figure 4)
        for (long i = 0; i < 5; i++) {
            r.handle(AtomicRequest.fetchAdd(i, ATOMIC, at(0), 1, 0), 0);
        }
        java.lang.reflect.Field expected = Responder.class.getDeclaredField("expected");
        expected.setAccessible(true);
        expected.setLong(r, 0xffff_fffeL);
        assertTrue(r.handle(AtomicRequest.fetchAdd(0xffff_fffeL, ATOMIC, at(0), 1, 0), 0)
                .executed());
        assertTrue(r.handle(AtomicRequest.fetchAdd(0xffff_ffffL, ATOMIC, at(0), 1, 0), 0)
                .executed());
        assertTrue(r.handle(AtomicRequest.fetchAdd(0, ATOMIC, at(0), 1, 0), 0).executed());
        assertFalse(r.handle(AtomicRequest.fetchAdd(0xffff_ffffL, ATOMIC, at(0), 1, 0), 0)
                .executed());
        assertEquals(8, region.get(JAVA_LONG, 0));
    }

    @Test
    void aRequestFindingTwiceIrdResponsesUnansweredExceedsIrd() throws Exception {
        responder.handle(AtomicRequest.fetchAdd(0, ATOMIC, at(0), 1, 0), 7);
        AgentProtocolException e = assertThrows(
                AgentProtocolException.class,
                () -> responder.handle(AtomicRequest.fetchAdd(1, ATOMIC, at(0), 1, 0), 8));
        assertEquals(TerminateError.NO_BUFFER, e.error());
        assertEquals(1, region.get(JAVA_LONG, 0));
        assertEquals(8, responder.highWater());
    }

    @Test
    void aRegionDeregisteredBetweenLookupAndExecutionIsAnInvalidStag() {
        registered.put(0x300, new AtomicTargets.Target() {
            @Override
            public long address() {
                return region.address();
            }

            @Override
            public long length() {
                return 64;
            }

            @Override
            public Set<Access> access() {
                return Set.of(Access.REMOTE_ATOMIC);
            }

            @Override
            public long execute(long offset, AtomicRequest r) {
                throw new IllegalStateException("memory region was deregistered");
            }
        });
        assertEquals(TerminateError.INVALID_STAG, refused(AtomicRequest.fetchAdd(0, 0x300, at(0), 1, 0)));
    }
}
