package org.panamardma.netty;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The wire format of the stream: every SEND carries one frame, an 8-byte header and, for {@link #DATA}, the payload.
 *
 * <pre>
 *   0      1      2         4                8                    16        20
 *   +------+------+---------+----------------+--------------------+---------+
 *   | type | 0    | credits | length (u32)   | CTS only: address  | rkey    |
 *   +------+------+---------+----------------+--------------------+---------+
 * </pre>
 *
 * Big-endian. {@code credits} returns that many receive buffers the sender has posted again since its last frame
 * (the peer may send that many more frames). {@code length}: the payload's for DATA (the SEND is exactly
 * {@code 8 + length} bytes), the bulk transfer's for RTS, CTS and DONE, zero otherwise.
 * <ul>
 *   <li>{@link #DATA}: stream bytes, in order.</li>
 *   <li>{@link #CREDIT}: credits only (sent when many are owed and no other frame carries them).</li>
 *   <li>{@link #RTS}: request to send {@code length} bytes by RDMA WRITE; the peer answers with {@link #CTS}.</li>
 *   <li>{@link #CTS}: clear to send: {@code length} bytes may be written at {@code address} with {@code rkey}, a
 *       registration made for this one transfer.</li>
 *   <li>{@link #DONE}: the WRITE of the granted transfer is placed (the SEND follows it on the same queue pair, and
 *       RC delivers it only after the WRITE's data: IBTA 9.5 / RFC 5040 section 5.5); its bytes come next in the
 *       stream.</li>
 *   <li>{@link #FIN}: the sender shut its output down: no stream bytes follow (half-close).</li>
 * </ul>
 */
final class Frame {
    static final byte DATA = 1;
    static final byte CREDIT = 2;
    static final byte RTS = 3;
    static final byte CTS = 4;
    static final byte DONE = 5;
    static final byte FIN = 6;

    static final int HEADER = 8;
    static final int CTS_LENGTH = 20;

    private static final ValueLayout.OfShort U16 = JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** The most credits one frame returns (the field is 16 bits). */
    static final int MAX_CREDITS = 0xFFFF;

    private Frame() {}

    static void writeHeader(MemorySegment slot, long offset, byte type, int credits, int length) {
        slot.set(JAVA_BYTE, offset, type);
        slot.set(JAVA_BYTE, offset + 1, (byte) 0);
        slot.set(U16, offset + 2, (short) credits);
        slot.set(U32, offset + 4, length);
    }

    static void writeGrant(MemorySegment slot, long offset, long address, int rkey) {
        slot.set(U64, offset + 8, address);
        slot.set(U32, offset + 16, rkey);
    }

    static byte type(MemorySegment slot, long offset) {
        return slot.get(JAVA_BYTE, offset);
    }

    static int credits(MemorySegment slot, long offset) {
        return Short.toUnsignedInt(slot.get(U16, offset + 2));
    }

    static int length(MemorySegment slot, long offset) {
        return slot.get(U32, offset + 4);
    }

    static long grantAddress(MemorySegment slot, long offset) {
        return slot.get(U64, offset + 8);
    }

    static int grantRkey(MemorySegment slot, long offset) {
        return slot.get(U32, offset + 16);
    }

    /**
     * Checks a received frame of {@code byteLength} bytes before anything of it is used; returns null if it is well
     * formed, else what is wrong (the connection is then closed: a peer that breaks the format is not trusted
     * further).
     */
    static String check(MemorySegment slot, long offset, int byteLength, int maxTransfer) {
        if (byteLength < HEADER) {
            return "a frame of " + byteLength + " bytes (the header alone is " + HEADER + ")";
        }
        if (slot.get(JAVA_BYTE, offset + 1) != 0) {
            return "reserved header byte is " + slot.get(JAVA_BYTE, offset + 1);
        }
        byte type = type(slot, offset);
        int length = length(slot, offset);
        return switch (type) {
            case DATA ->
                length != byteLength - HEADER || length == 0
                        ? "DATA frame of " + byteLength + " bytes says its payload is "
                                + Integer.toUnsignedString(length)
                        : null;
            case CREDIT, FIN ->
                byteLength != HEADER || length != 0
                        ? "control frame " + type + " of " + byteLength + " bytes, length "
                                + Integer.toUnsignedString(length)
                        : null;
            case RTS ->
                byteLength != HEADER || length <= 0 || length > maxTransfer
                        ? "RTS for " + Integer.toUnsignedString(length) + " bytes (at most " + maxTransfer
                                + " were offered)"
                        : null;
            case DONE ->
                byteLength != HEADER || length <= 0 ? "DONE of " + Integer.toUnsignedString(length) + " bytes" : null;
            case CTS -> byteLength != CTS_LENGTH || length <= 0 ? "CTS frame of " + byteLength + " bytes" : null;
            default -> "unknown frame type " + type;
        };
    }
}
