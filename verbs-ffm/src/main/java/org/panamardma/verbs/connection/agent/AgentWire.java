package org.panamardma.verbs.connection.agent;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The agent's wire format. On a connection whose agent is active every SEND starts with a 4-byte control word, and
 * the RFC 7306 messages travel as SENDs in their own formats (all fields big-endian, "the fields are in big-endian
 * format on the wire", RFC 7306 sections 5.1.1 and 5.1.2):
 *
 * <pre>
 *  byte 0     the RDMAP Control Field of RFC 5040 section 4.3 (RFC 7306 Figure 1): RV (2 bits, 01b), Rsv (2 bits,
 *             0), Opcode (4 bits). iWARP's RDMAP carries it in every DDP segment, where a SEND's receiver never sees
 *             it; the agent puts it in the message instead.
 *  byte 1     flags: 0x01 on a Send: Immediate Data (8 bytes) follows the control word
 *  bytes 2-3  reserved: 0 on transmit, ignored on receive
 *  then, by opcode:
 *    0011b Send               [8 bytes Immediate Data if flagged] then the application's payload
 *    1000b Immediate Data     8 bytes (RFC 7306 section 6.2, Figure 7); also 1001b, with Solicited Event
 *    1010b Atomic Request     52 bytes (section 5.2.1, Figure 4)
 *    1011b Atomic Response    12 bytes (section 5.2.2, Figure 6)
 *    0111b Terminate          the Terminate Control (RFC 5040 section 4.8: Layer, EType, Error Code, M/D/A bits)
 *                             and the Request Identifier concerned, valid when the A bit is set: 8 bytes
 * </pre>
 *
 * A SEND with immediate data has no RFC 7306 equivalent (RDMAP's Send carries none); it is a Send whose flag says
 * that Immediate Data precedes the payload, so that it consumes one receive as on InfiniBand. WRITE with immediate
 * data is RFC 7306's own composition: the WRITE, then an Immediate Data message (section 6).
 *
 * <p>The decoder takes any bytes: a message that is not exactly one of these is refused with an
 * {@link AgentProtocolException} naming the RFC's error; it never reads outside the message. It is fuzzed
 * ({@code AgentFuzzTest}).
 */
final class AgentWire {
    private AgentWire() {}

    static final ValueLayout.OfInt INT = JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG = JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** RV = 01b in the two most significant bits of the RDMAP Control Field. */
    static final int RDMAP_VERSION = 0x40;

    static final int OPCODE_SEND = 0x3;
    static final int OPCODE_TERMINATE = 0x7;
    static final int OPCODE_IMMEDIATE = 0x8;
    static final int OPCODE_IMMEDIATE_SE = 0x9;
    static final int OPCODE_ATOMIC_REQUEST = 0xA;
    static final int OPCODE_ATOMIC_RESPONSE = 0xB;
    static final int FLAG_IMMEDIATE = 0x01;
    /** Terminate Control's A bit: the terminated message's RDMA header (here: its Request Identifier) is included. */
    static final int TERMINATE_HEADER_INCLUDED = 0x2000;

    static final int CONTROL = 4;
    static final int IMMEDIATE = 8;
    static final int ATOMIC_REQUEST = 52;
    static final int ATOMIC_RESPONSE = 12;
    static final int TERMINATE = 8;
    /** The longest header before a Send's payload: the control word and Immediate Data. */
    static final int MAX_SEND_HEADER = CONTROL + IMMEDIATE;
    /** The longest message that is the agent's own (an Atomic Request with its control word). */
    static final int MAX_AGENT_MESSAGE = CONTROL + ATOMIC_REQUEST;

    // ------------------------------------------------------------------------------------------------ messages

    /** What one received SEND was. */
    sealed interface Message permits Send, ImmediateData, AtomicResponse, Terminate, Request {}

    /** The application's SEND: its payload starts at {@code payloadOffset} of the message. */
    record Send(int payloadOffset, boolean hasImmediate, long immediate) implements Message {}

    record ImmediateData(long value) implements Message {}

    record AtomicResponse(long requestId, long originalValue) implements Message {}

    /** @param requestId the Request Identifier of the terminated request, -1 if the Terminate names none */
    record Terminate(TerminateError error, long requestId) implements Message {}

    record Request(AtomicRequest request) implements Message {}

    // ---------------------------------------------------------------------------------------------- encoding

    private static void control(MemorySegment dst, long offset, int opcode, int flags) {
        dst.set(JAVA_BYTE, offset, (byte) (RDMAP_VERSION | opcode));
        dst.set(JAVA_BYTE, offset + 1, (byte) flags);
        dst.set(JAVA_BYTE, offset + 2, (byte) 0);
        dst.set(JAVA_BYTE, offset + 3, (byte) 0);
    }

    /** A Send's header: the control word, and Immediate Data if {@code hasImmediate}. @return its length */
    static int encodeSendHeader(MemorySegment dst, long offset, boolean hasImmediate, int immediate) {
        control(dst, offset, OPCODE_SEND, hasImmediate ? FLAG_IMMEDIATE : 0);
        if (!hasImmediate) {
            return CONTROL;
        }
        dst.set(LONG, offset + CONTROL, Integer.toUnsignedLong(immediate));
        return MAX_SEND_HEADER;
    }

    /** An Immediate Data message carrying the 32-bit verbs immediate value in its low half. @return its length */
    static int encodeImmediateData(MemorySegment dst, long offset, int immediate) {
        control(dst, offset, OPCODE_IMMEDIATE, 0);
        dst.set(LONG, offset + CONTROL, Integer.toUnsignedLong(immediate));
        return CONTROL + IMMEDIATE;
    }

    /** An Atomic Request (Figure 4). @return its length */
    static int encodeRequest(MemorySegment dst, long offset, AtomicRequest r) {
        control(dst, offset, OPCODE_ATOMIC_REQUEST, 0);
        long o = offset + CONTROL;
        dst.set(INT, o, r.operation().code); // Reserved (28 bits, zero) and AOpCode
        dst.set(INT, o + 4, (int) r.requestId());
        dst.set(INT, o + 8, r.stag());
        dst.set(LONG, o + 12, r.taggedOffset());
        dst.set(LONG, o + 20, r.addOrSwap());
        dst.set(LONG, o + 28, r.addOrSwapMask());
        dst.set(LONG, o + 36, r.compare());
        dst.set(LONG, o + 44, r.compareMask());
        return CONTROL + ATOMIC_REQUEST;
    }

    /**
     * An Atomic Request exactly as given: {@code aOpCode} is the whole first word (Reserved bits included), for tests
     * that send what a faulty peer would. @return its length
     */
    static int encodeRawRequest(
            MemorySegment dst,
            long offset,
            int firstWord,
            long requestId,
            int stag,
            long taggedOffset,
            long addOrSwap,
            long addOrSwapMask,
            long compare,
            long compareMask) {
        int n = encodeRequest(
                dst,
                offset,
                new AtomicRequest(
                        AtomicRequest.Operation.FETCH_ADD,
                        requestId,
                        stag,
                        taggedOffset,
                        addOrSwap,
                        addOrSwapMask,
                        compare,
                        compareMask));
        dst.set(INT, offset + CONTROL, firstWord);
        return n;
    }

    /** An Atomic Response (Figure 6). @return its length */
    static int encodeResponse(MemorySegment dst, long offset, long requestId, long originalValue) {
        control(dst, offset, OPCODE_ATOMIC_RESPONSE, 0);
        dst.set(INT, offset + CONTROL, (int) requestId);
        dst.set(LONG, offset + CONTROL + 4, originalValue);
        return CONTROL + ATOMIC_RESPONSE;
    }

    /** A Terminate naming {@code error} and, unless it is -1, the request it concerns. @return its length */
    static int encodeTerminate(MemorySegment dst, long offset, TerminateError error, long requestId) {
        control(dst, offset, OPCODE_TERMINATE, 0);
        int word = error.control() << 16 | (requestId >= 0 ? TERMINATE_HEADER_INCLUDED : 0);
        dst.set(INT, offset + CONTROL, word);
        dst.set(INT, offset + CONTROL + 4, requestId >= 0 ? (int) requestId : 0);
        return CONTROL + TERMINATE;
    }

    // ---------------------------------------------------------------------------------------------- decoding

    /**
     * Decodes one received SEND: {@code message} is exactly the bytes received.
     *
     * @throws AgentProtocolException for anything that is not one of the messages above, of its exact length
     */
    static Message decode(MemorySegment message) throws AgentProtocolException {
        long length = message.byteSize();
        if (length < CONTROL) {
            throw new AgentProtocolException(
                    TerminateError.CATASTROPHIC_STREAM,
                    "a message of " + length + " bytes is shorter than the agent's control word");
        }
        int control = message.get(JAVA_BYTE, 0) & 0xff;
        if ((control & 0xc0) != RDMAP_VERSION) {
            throw new AgentProtocolException(
                    TerminateError.INVALID_VERSION,
                    "RDMAP version " + (control >>> 6) + " in the control byte 0x" + Integer.toHexString(control));
        }
        int flags = message.get(JAVA_BYTE, 1) & 0xff;
        int opcode = control & 0x0f;
        return switch (opcode) {
            case OPCODE_SEND -> {
                if ((flags & FLAG_IMMEDIATE) == 0) {
                    yield new Send(CONTROL, false, 0L);
                }
                requireAtLeast(message, MAX_SEND_HEADER, "a Send with Immediate Data");
                yield new Send(MAX_SEND_HEADER, true, message.get(LONG, CONTROL));
            }
            case OPCODE_IMMEDIATE, OPCODE_IMMEDIATE_SE -> {
                // RFC 7306 section 6.3: "MUST check that Immediate Data ... include exactly 8 bytes"
                requireExactly(message, CONTROL + IMMEDIATE, "an Immediate Data message");
                yield new ImmediateData(message.get(LONG, CONTROL));
            }
            case OPCODE_ATOMIC_REQUEST -> {
                requireExactly(message, CONTROL + ATOMIC_REQUEST, "an Atomic Request");
                long o = CONTROL;
                long id = Integer.toUnsignedLong(message.get(INT, o + 4));
                // Reserved (28 bits) "ignored on receive"; the AOpCode is the low 4 bits
                AtomicRequest.Operation op = AtomicRequest.Operation.of(message.get(INT, o) & 0xf);
                if (op == null) {
                    throw new AgentProtocolException(
                            TerminateError.UNEXPECTED_OPCODE,
                            id,
                            "Atomic Operation Code 0x" + Integer.toHexString(message.get(INT, o) & 0xf));
                }
                yield new Request(new AtomicRequest(
                        op,
                        id,
                        message.get(INT, o + 8),
                        message.get(LONG, o + 12),
                        message.get(LONG, o + 20),
                        message.get(LONG, o + 28),
                        message.get(LONG, o + 36),
                        message.get(LONG, o + 44)));
            }
            case OPCODE_ATOMIC_RESPONSE -> {
                requireExactly(message, CONTROL + ATOMIC_RESPONSE, "an Atomic Response");
                yield new AtomicResponse(
                        Integer.toUnsignedLong(message.get(INT, CONTROL)), message.get(LONG, CONTROL + 4));
            }
            case OPCODE_TERMINATE -> {
                requireExactly(message, CONTROL + TERMINATE, "a Terminate");
                int word = message.get(INT, CONTROL);
                boolean named = (word & TERMINATE_HEADER_INCLUDED) != 0;
                yield new Terminate(
                        TerminateError.of(word >>> 16),
                        named ? Integer.toUnsignedLong(message.get(INT, CONTROL + 4)) : -1L);
            }
            default ->
                throw new AgentProtocolException(
                        TerminateError.UNEXPECTED_OPCODE,
                        "RDMAP opcode 0x" + Integer.toHexString(opcode) + " is none the agent takes");
        };
    }

    private static void requireExactly(MemorySegment m, long length, String what) throws AgentProtocolException {
        if (m.byteSize() != length) {
            throw new AgentProtocolException(
                    TerminateError.CATASTROPHIC_STREAM,
                    what + " of " + m.byteSize() + " bytes (it has " + length + ")");
        }
    }

    private static void requireAtLeast(MemorySegment m, long length, String what) throws AgentProtocolException {
        if (m.byteSize() < length) {
            throw new AgentProtocolException(
                    TerminateError.CATASTROPHIC_STREAM,
                    what + " of " + m.byteSize() + " bytes (its header alone has " + length + ")");
        }
    }
}
