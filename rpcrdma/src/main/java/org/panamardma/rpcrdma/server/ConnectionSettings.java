package org.panamardma.rpcrdma.server;

/**
 * What one connection's server side works with: the inline thresholds both ways and the credit limit.
 *
 * @param receiveInline the largest message this server receives inline (its receive buffer size): the client's
 *                      send threshold
 * @param sendInline the largest message this server sends inline: the client's receive threshold (1024 bytes
 *                   unless the client announced more, RFC 8166 section 3.3.3 and RFC 8797 section 4)
 * @param maxCredits the most credits granted; the receives posted are at least this many
 * @param maxCallSize the largest assembled RPC call (inline plus Read chunks) accepted
 * @param maxReplySize the largest RPC reply built (inline or in a Reply chunk, Write chunk data excluded)
 * @param maxRdmaReads the RDMA Reads this server has outstanding at the client at once (its initiator depth)
 */
public record ConnectionSettings(
        int receiveInline, int sendInline, int maxCredits, int maxCallSize, int maxReplySize, int maxRdmaReads) {
    /** The inline threshold of RFC 8166 section 3.3.3 for a peer that announces nothing. */
    public static final int DEFAULT_INLINE = 1024;

    /**
     * Checks the settings.
     *
     * @throws IllegalArgumentException naming the setting out of its range
     */
    public ConnectionSettings {
        if (receiveInline < DEFAULT_INLINE || sendInline < DEFAULT_INLINE) {
            throw new IllegalArgumentException(
                    "inline thresholds below " + DEFAULT_INLINE + ": " + receiveInline + ", " + sendInline);
        }
        if (maxCredits < 1) {
            throw new IllegalArgumentException("at least one credit, not " + maxCredits);
        }
        if (maxCallSize < receiveInline || maxReplySize < sendInline) {
            throw new IllegalArgumentException("call/reply size limits below the inline thresholds");
        }
        if (maxRdmaReads < 1) {
            throw new IllegalArgumentException("at least one RDMA Read, not " + maxRdmaReads);
        }
    }

    /**
     * The credit value to grant in a reply (draft section 3.3; RFC 8166 section 3.3.1): what the client asked for,
     * at most {@link #maxCredits}, and never zero, since a client with nothing in flight and no credit would
     * deadlock.
     *
     * @param requested the call's {@code rdma_credit}, as its unsigned 32 bits
     * @return the credits to grant, in [1, {@link #maxCredits}]
     */
    public int grant(int requested) {
        long asked = Integer.toUnsignedLong(requested);
        return (int) Math.max(1, Math.min(asked, maxCredits));
    }
}
