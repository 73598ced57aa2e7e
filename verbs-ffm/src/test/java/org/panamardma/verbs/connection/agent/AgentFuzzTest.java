package org.panamardma.verbs.connection.agent;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.extensions.Rfc7306;

/**
 * Fuzzes what a peer can send the agent (rpcrdma/FUZZING.md describes the method): a stream of received SENDs, each
 * decoded by {@link AgentWire#decode} and, as on a connection, Atomic Requests executed by a {@link Responder} on a
 * responder's memory and Atomic Responses matched by a {@link Requester} with requests outstanding. The input is a
 * configuration byte (bits 0-2: IRD - 1; bits 3-4: requests outstanding), then messages, each a length byte (bits
 * 0-5: the length; bits 6-7: how many responses are unanswered, 0, IRD - 1, 2 x IRD - 1 or 2 x IRD) and that many
 * bytes. The regions the STags name: 1, 64 bytes with remote atomics at tagged offset 0x1000; 2, 64 bytes without,
 * at 0x2000; 3, a region deregistered while it is used; any other, none.
 *
 * <p>The typed refusal is {@link AgentProtocolException}: anything else escaping is a finding, and processing stops
 * at the first refusal (the connection would be terminated). Checked besides: a refused request leaves both regions
 * untouched; an executed one changes its word, and only it, to RFC 7306's result ({@link Rfc7306}, the pseudo-code
 * bit by bit) and answers the original value; a retransmission changes nothing; what decodes re-encodes to the
 * bytes read, bar the bits the receiver ignores; and each decode and each request allocates at most {@link #BOUND}
 * bytes, whatever the input (the state is fixed: IRD records, the outstanding requests). Two identical agents run
 * side by side: they must agree, and the second is the allocation check's twin ({@link AllocationBound}).
 */
class AgentFuzzTest {
    /** A decode builds one record or one refusal (no stack trace, a message of a few numbers): well under this. */
    static final long BOUND = 4 << 10;

    static final long ATOMIC_BASE = 0x1000;
    static final long PLAIN_BASE = 0x2000;

    /** One agent's state: its memory, responder and requester. */
    static final class Side {
        final MemorySegment atomic;
        final MemorySegment plain;
        final Responder responder;
        final Requester requester;

        Side(Arena arena, int ird, int outstanding, long seed) {
            atomic = arena.allocate(64, 8);
            plain = arena.allocate(64, 8);
            java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
            for (int i = 0; i < 8; i++) {
                atomic.set(JAVA_LONG, 8L * i, r.nextLong());
                plain.set(JAVA_LONG, 8L * i, r.nextLong());
            }
            responder = new Responder(this::find, ird);
            requester = new Requester(
                    (template, index, assign) -> {
                        assign.assign();
                        assign.posted();
                        return CompletableFuture.completedFuture(null);
                    },
                    4);
            for (int i = 0; i < outstanding; i++) {
                var _ = requester.submit(AtomicRequest.fetchAdd(0, 1, 0, 1, 0));
            }
        }

        private AtomicTargets.Target find(int stag) {
            return switch (stag) {
                case 1 -> new Based(atomic, ATOMIC_BASE, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC), false);
                case 2 -> new Based(plain, PLAIN_BASE, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE), false);
                case 3 -> new Based(atomic, ATOMIC_BASE, EnumSet.of(Access.REMOTE_ATOMIC), true);
                default -> null;
            };
        }
    }

    /** A region at a fixed tagged offset (the fuzzer can name it), over native memory. */
    record Based(MemorySegment memory, long address, Set<Access> access, boolean deregistered)
            implements AtomicTargets.Target {
        @Override
        public long length() {
            return memory.byteSize();
        }

        @Override
        public long execute(long offset, AtomicRequest r) {
            if (deregistered) {
                throw new IllegalStateException("memory region was deregistered");
            }
            return AtomicOps.execute(memory, offset, r);
        }
    }

    @FuzzTest
    void receive(byte[] data) throws Exception {
        if (data.length == 0) {
            return;
        }
        int ird = (data[0] & 7) + 1;
        int outstanding = (data[0] >>> 3) & 3;
        try (Arena arena = Arena.ofConfined()) {
            Side a = new Side(arena, ird, outstanding, data.length);
            Side b = new Side(arena, ird, outstanding, data.length);
            int pos = 1;
            while (pos < data.length) {
                int head = data[pos++] & 0xff;
                int length = Math.min(head & 0x3f, data.length - pos);
                int unanswered = switch (head >>> 6) {
                    case 0 -> 0;
                    case 1 -> ird - 1;
                    case 2 -> 2 * ird - 1;
                    default -> 2 * ird;
                };
                byte[] message = Arrays.copyOfRange(data, pos, pos + length);
                pos += length;
                if (!step(a, b, message, unanswered)) {
                    return;
                }
            }
        }
    }

    /** One received message through both agents; false when it was refused (the connection would end). */
    private static boolean step(Side a, Side b, byte[] bytes, int unanswered) throws Exception {
        MemorySegment message = MemorySegment.ofArray(bytes);
        Object[] decoded = new Object[2];
        AllocationBound.within(
                "AgentWire.decode", BOUND, () -> decoded[0] = decode(message), () -> decoded[1] = decode(message));
        assertEquals(decoded[0].getClass(), decoded[1].getClass());
        if (decoded[0] instanceof AgentProtocolException e) {
            assertNotNull(e.error());
            assertEquals(e.error(), ((AgentProtocolException) decoded[1]).error());
            return false;
        }
        AgentWire.Message m = (AgentWire.Message) decoded[0];
        assertEquals(m, decoded[1]);
        checkReencodes(m, bytes);
        switch (m) {
            case AgentWire.Request r -> {
                return execute(a, b, r.request(), unanswered);
            }
            case AgentWire.AtomicResponse response -> {
                boolean okA = respond(a, response);
                assertEquals(okA, respond(b, response));
                return okA;
            }
            case AgentWire.Terminate t -> {
                return false;
            }
            case AgentWire.Send s -> {
                assertTrue(s.payloadOffset() == AgentWire.CONTROL || s.payloadOffset() == AgentWire.MAX_SEND_HEADER);
                assertTrue(s.payloadOffset() <= bytes.length);
                return true;
            }
            case AgentWire.ImmediateData d -> {
                assertEquals(AgentWire.CONTROL + AgentWire.IMMEDIATE, bytes.length);
                return true;
            }
        }
    }

    private static Object decode(MemorySegment message) {
        try {
            return AgentWire.decode(message);
        } catch (AgentProtocolException e) {
            return e;
        }
    }

    private static boolean respond(Side side, AgentWire.AtomicResponse r) {
        try {
            side.requester.onResponse(r.requestId(), r.originalValue());
            return true;
        } catch (AgentProtocolException e) {
            assertEquals(TerminateError.MSN_RANGE, e.error());
            return false;
        }
    }

    private static boolean execute(Side a, Side b, AtomicRequest r, int unanswered) throws Exception {
        byte[] atomicBefore = a.atomic.toArray(JAVA_BYTE);
        byte[] plainBefore = a.plain.toArray(JAVA_BYTE);
        Object[] outcome = new Object[2];
        AllocationBound.within(
                "Responder.handle",
                BOUND,
                () -> outcome[0] = handle(a, r, unanswered),
                () -> outcome[1] = handle(b, r, unanswered));
        assertArrayEquals(a.atomic.toArray(JAVA_BYTE), b.atomic.toArray(JAVA_BYTE), "the twins' memories differ");
        assertArrayEquals(plainBefore, a.plain.toArray(JAVA_BYTE), "a region without REMOTE_ATOMIC changed");
        if (outcome[0] instanceof AgentProtocolException e) {
            assertEquals(e.error(), ((AgentProtocolException) outcome[1]).error());
            assertEquals(r.requestId(), e.requestId(), "the Terminate names the request");
            assertArrayEquals(atomicBefore, a.atomic.toArray(JAVA_BYTE), "a refused request changed memory");
            return false;
        }
        Responder.Answer answer = (Responder.Answer) outcome[0];
        assertEquals(answer, outcome[1]);
        byte[] after = a.atomic.toArray(JAVA_BYTE);
        if (!answer.executed()) {
            assertArrayEquals(atomicBefore, after, "a retransmission executed again");
            return true;
        }
        assertEquals(1, r.stag());
        int offset = (int) (r.taggedOffset() - ATOMIC_BASE);
        long original = MemorySegment.ofArray(atomicBefore).get(JAVA_LONG.withByteAlignment(1), offset);
        assertEquals(original, answer.originalValue(), "the original value");
        long expected = r.operation() == AtomicRequest.Operation.FETCH_ADD
                ? Rfc7306.maskedFetchAddResult(original, r.addOrSwap(), r.addOrSwapMask())
                : Rfc7306.maskedCompareSwapResult(
                        original, r.compare(), r.compareMask(), r.addOrSwap(), r.addOrSwapMask());
        assertEquals(expected, a.atomic.get(JAVA_LONG, offset), "RFC 7306's result");
        MemorySegment.ofArray(atomicBefore).set(JAVA_LONG.withByteAlignment(1), offset, expected);
        assertArrayEquals(atomicBefore, after, "bytes beside the word changed");
        return true;
    }

    private static Object handle(Side side, AtomicRequest r, int unanswered) {
        try {
            return side.responder.handle(r, unanswered);
        } catch (AgentProtocolException e) {
            return e;
        }
    }

    /** What decoded re-encodes to the bytes read, but for what the receiver ignores (reserved and flag bits). */
    private static void checkReencodes(AgentWire.Message m, byte[] bytes) {
        byte[] again = new byte[bytes.length];
        MemorySegment out = MemorySegment.ofArray(again);
        byte[] expected = bytes.clone();
        expected[0] &= (byte) 0xcf; // the RDMAP Control Field's Rsv bits: "not checked on receive" (RFC 5040 4.3)
        expected[1] = 0;
        expected[2] = 0;
        expected[3] = 0;
        switch (m) {
            case AgentWire.Request r -> {
                AgentWire.encodeRequest(out, 0, r.request());
                expected[4] = 0; // Reserved (28 bits) before the AOpCode
                expected[5] = 0;
                expected[6] = 0;
                expected[7] &= 0x0f;
            }
            case AgentWire.AtomicResponse r -> AgentWire.encodeResponse(out, 0, r.requestId(), r.originalValue());
            default -> {
                return; // Sends carry the application's bytes; Immediate Data and Terminates are checked above
            }
        }
        assertArrayEquals(expected, again, "re-encoded");
    }
}
