package org.panamardma.rpcrdma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The RPC-over-RDMA version 1 connection private data of RFC 8797 (section 7), carried in the RDMA-CM connect
 * request and accept: each peer announces the largest inline message it will send and the largest it can receive.
 *
 * <pre>
 * struct rpcrdma1_connect_private {
 *     uint32 cp_magic;      // 0xf6ab0e18, big-endian (network order)
 *     uint8  cp_version;    // 1
 *     uint8  cp_flags;      // bit 0: the sender may be sent Send With Invalidate
 *     uint8  cp_send_size;  // (size / 1024) - 1
 *     uint8  cp_recv_size;  // (size / 1024) - 1
 * };
 * </pre>
 *
 * A peer that is not RFC 8797-aware sends no private data, or data of another format; RFC 8797 section 7.2 then has
 * both inline thresholds default to 1024 bytes (RFC 8166 section 3.3.3). {@link #decode} therefore never fails: it
 * yields {@link #DEFAULTS} with {@link #present()} false for absent, short or foreign data.
 *
 * @param sendSize the largest inline message, in bytes, the announcing peer will send (a multiple of 1024,
 *     1 KiB to 256 KiB)
 * @param receiveSize the largest inline message, in bytes, the announcing peer can receive (same range)
 * @param remoteInvalidation whether the announcing peer accepts Send With Invalidate (flag bit 0)
 * @param present whether these values came from RFC 8797 private data ({@code false}: defaults for a peer that sent
 *     none)
 */
public record ConnectPrivateData(int sendSize, int receiveSize, boolean remoteInvalidation, boolean present) {
    /** The format identifier, RFC 8797 section 7. */
    public static final int MAGIC = 0xf6ab0e18;
    /** The only version defined, RFC 8797 section 7. */
    public static final int VERSION = 1;
    /** cp_flags bit 0: remote invalidation is supported by the sender of the private data. */
    public static final int FLAG_REMOTE_INVALIDATION = 1;
    /** Encoded length in bytes. */
    public static final int ENCODED_LENGTH = 8;
    /** The RPC-over-RDMA version 1 default inline threshold (RFC 8166 section 3.3.3). */
    public static final int DEFAULT_INLINE_SIZE = 1024;
    /** Smallest and largest sizes the one-byte encoding can express. */
    public static final int MIN_SIZE = 1024;

    public static final int MAX_SIZE = 256 * 1024;
    /** What a peer that sent no RFC 8797 private data is assumed to support. */
    public static final ConnectPrivateData DEFAULTS =
            new ConnectPrivateData(DEFAULT_INLINE_SIZE, DEFAULT_INLINE_SIZE, false, false);

    private static final ValueLayout.OfInt MAGIC_LAYOUT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Checks the sizes.
     *
     * @throws IllegalArgumentException if a size is not a multiple of 1024 in [1024, 262144]
     */
    public ConnectPrivateData {
        checkSize("sendSize", sendSize);
        checkSize("receiveSize", receiveSize);
    }

    /**
     * Values we announce. Sizes that are not multiples of 1 KiB are rounded down, as the one-byte encoding requires
     * (announcing more than we can take would be wrong; less is safe).
     *
     * @param sendSize the largest message we send
     * @param receiveSize the largest message we can receive
     * @param remoteInvalidation whether the peer may invalidate our keys with Send With Invalidate
     * @return what we announce (present)
     * @throws IllegalArgumentException if a size is below 1024
     */
    public static ConnectPrivateData of(int sendSize, int receiveSize, boolean remoteInvalidation) {
        return new ConnectPrivateData(roundDownToKiB(sendSize), roundDownToKiB(receiveSize), remoteInvalidation, true);
    }

    private static int roundDownToKiB(int size) {
        if (size < MIN_SIZE) {
            throw new IllegalArgumentException("inline size " + size + " is below the 1024-byte minimum of RFC 8166");
        }
        return Math.min(size, MAX_SIZE) & ~1023;
    }

    private static void checkSize(String name, int size) {
        if (size < MIN_SIZE || size > MAX_SIZE || size % 1024 != 0) {
            throw new IllegalArgumentException(name + " " + size + " is not a multiple of 1024 in [1024, 262144]");
        }
    }

    /** {@return the 8 bytes of RFC 8797 private data} */
    public byte[] encode() {
        byte[] bytes = new byte[ENCODED_LENGTH];
        MemorySegment.ofArray(bytes).set(MAGIC_LAYOUT, 0, MAGIC);
        bytes[4] = VERSION;
        bytes[5] = (byte) (remoteInvalidation ? FLAG_REMOTE_INVALIDATION : 0);
        bytes[6] = encodeSize(sendSize);
        bytes[7] = encodeSize(receiveSize);
        return bytes;
    }

    /** One byte, RFC 8797 section 7: the size in 1 KiB units, minus one. */
    static byte encodeSize(int size) {
        return (byte) ((size >> 10) - 1);
    }

    static int decodeSize(byte encoded) {
        return (Byte.toUnsignedInt(encoded) + 1) << 10;
    }

    /**
     * Reads a peer's private data. Absent ({@code null}), short, foreign-magic or other-version data yields
     * {@link #DEFAULTS}; RFC 8797 section 7.2: such a peer is treated as using the 1 KiB defaults. Trailing bytes
     * (private data is padded by the CM to its fixed size on IB) are ignored. Unknown flag bits are ignored.
     *
     * @param data the private data of the CM event, or null
     * @return the peer's values, or {@link #DEFAULTS}
     */
    public static ConnectPrivateData decode(byte[] data) {
        return data == null ? DEFAULTS : decode(MemorySegment.ofArray(data));
    }

    /**
     * As {@link #decode(byte[])}, over a segment.
     *
     * @param data the private data, or null
     * @return the peer's values, or {@link #DEFAULTS}
     */
    public static ConnectPrivateData decode(MemorySegment data) {
        if (data == null || data.byteSize() < ENCODED_LENGTH) {
            return DEFAULTS;
        }
        if (data.get(MAGIC_LAYOUT, 0) != MAGIC || data.get(ValueLayout.JAVA_BYTE, 4) != VERSION) {
            return DEFAULTS;
        }
        byte flags = data.get(ValueLayout.JAVA_BYTE, 5);
        return new ConnectPrivateData(
                decodeSize(data.get(ValueLayout.JAVA_BYTE, 6)),
                decodeSize(data.get(ValueLayout.JAVA_BYTE, 7)),
                (flags & FLAG_REMOTE_INVALIDATION) != 0,
                true);
    }

    /**
     * The inline threshold for messages we send to this peer: the smaller of what we would send and what the peer
     * says it can receive (RFC 8797 section 7.2).
     *
     * @param ours the private data we sent
     * @param peers the peer's
     * @return the largest inline message we send
     */
    public static int sendThreshold(ConnectPrivateData ours, ConnectPrivateData peers) {
        return Math.min(ours.sendSize(), peers.receiveSize());
    }

    /**
     * The inline threshold for messages we receive: the smaller of our receive size and the peer's send size.
     *
     * @param ours the private data we sent
     * @param peers the peer's
     * @return the largest inline message we plan to receive
     */
    public static int receiveThreshold(ConnectPrivateData ours, ConnectPrivateData peers) {
        return Math.min(ours.receiveSize(), peers.sendSize());
    }
}
