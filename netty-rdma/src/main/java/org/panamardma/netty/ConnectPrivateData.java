package org.panamardma.netty;

import java.nio.ByteBuffer;

/**
 * What each side tells the other in rdma_cm's private data (the client's connect, the server's accept): the
 * protocol's magic and version, how many receive buffers it posted (the peer's initial credits), how large each is
 * (the largest SEND the peer may make), the largest bulk transfer it grants at once, and on Soft-iWARP where its
 * stream start word is (key and address, both 0 where there is none: {@link DeviceResources#streamStart}). 28 bytes,
 * big-endian: within the 56 bytes a connect carries on InfiniBand/RoCE and the 196/512 of an iWARP MPA request
 * (PrivateDataLimits).
 */
record ConnectPrivateData(
        int receiveDepth, int bufferSize, int maxTransfer, int streamStartKey, long streamStartAddress) {
    /** "NRDM": Netty over RDMA. */
    static final int MAGIC = 0x4e52444d;

    /** Version 2 added the stream start word. */
    static final byte VERSION = 2;

    static final int LENGTH = 28;
    /** What a stream start word holds: the magic and the version, then three zero bytes. */
    static final long WORD = ((long) MAGIC << 32) | ((long) VERSION << 24);

    ConnectPrivateData {
        if (receiveDepth < CreditFlow.MIN_RECEIVE_DEPTH || receiveDepth > 0xFFFF) {
            throw new IllegalArgumentException(
                    "receive depth " + receiveDepth + " not in [" + CreditFlow.MIN_RECEIVE_DEPTH + ", 65535]");
        }
        if (bufferSize < Frame.CTS_LENGTH + 1) {
            throw new IllegalArgumentException("buffer size " + bufferSize + " below " + (Frame.CTS_LENGTH + 1));
        }
        if (maxTransfer < 0) {
            throw new IllegalArgumentException("negative max transfer " + maxTransfer);
        }
    }

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(LENGTH);
        b.putInt(MAGIC)
                .put(VERSION)
                .put((byte) 0)
                .putShort((short) receiveDepth)
                .putInt(bufferSize)
                .putInt(maxTransfer)
                .putInt(streamStartKey)
                .putLong(streamStartAddress);
        return b.array();
    }

    /**
     * Decodes the peer's private data (longer is accepted: some transports pad it).
     *
     * @throws IllegalArgumentException if it is not this protocol's, names what is wrong
     */
    static ConnectPrivateData decode(byte[] data) {
        // a peer's key and address are taken as given: a wrong pair fails only this side's probe READ, and with it the
        // connect to that peer
        if (data == null || data.length < 5) {
            throw new IllegalArgumentException("private data of " + (data == null ? 0 : data.length)
                    + " bytes: not a netty-rdma peer (" + LENGTH + " expected)");
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        int magic = b.getInt();
        if (magic != MAGIC) {
            throw new IllegalArgumentException(
                    "private data magic 0x" + Integer.toHexString(magic) + ": not a netty-rdma peer");
        }
        // the version before the length: each version has its own length, and a peer of another release is named so
        byte version = b.get();
        if (version != VERSION) {
            throw new IllegalArgumentException(
                    "netty-rdma protocol version " + version + " (this side speaks " + VERSION + ")");
        }
        if (data.length < LENGTH) {
            throw new IllegalArgumentException(
                    "private data of " + data.length + " bytes: version " + VERSION + " has " + LENGTH);
        }
        b.get();
        return new ConnectPrivateData(
                Short.toUnsignedInt(b.getShort()), b.getInt(), b.getInt(), b.getInt(), b.getLong());
    }
}
