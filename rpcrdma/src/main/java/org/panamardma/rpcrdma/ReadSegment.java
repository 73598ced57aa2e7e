package org.panamardma.rpcrdma;

import java.util.Objects;

/**
 * One entry of a Read list: {@code xdr_read_chunk} of draft-ietf-nfsv4-rpcrdma-08 section 4.3
 * ({@code rpcrdma1_read_segment}, RFC 8166 section 3.4.5). Consecutive entries with the same position form one
 * Read chunk ({@link ReadChunk}).
 *
 * @param position the XDR position, in the full (unreduced) RPC message, where the chunk's data belongs; 0 marks
 *                 the whole message moved by RDMA Read (RFC 8166 section 3.5.3)
 * @param target the memory to read from
 */
public record ReadSegment(int position, RdmaSegment target) {
    /** Encoded size in a Read list: the list discriminator, the position, the segment. */
    public static final int XDR_SIZE_IN_LIST = 4 + 4 + RdmaSegment.XDR_SIZE;

    /**
     * Checks the position.
     *
     * @throws IllegalArgumentException if {@code position} is negative
     */
    public ReadSegment {
        Objects.requireNonNull(target, "target");
        if (position < 0) {
            throw new IllegalArgumentException(
                    "read position " + Integer.toUnsignedString(position) + " beyond 2^31-1");
        }
    }

    /**
     * A read segment at {@code position}.
     *
     * @param position the item's XDR position in the RPC message
     * @param handle the segment's handle (rkey)
     * @param length its length in bytes
     * @param offset its offset (address)
     * @return the read segment
     */
    public static ReadSegment of(int position, int handle, int length, long offset) {
        return new ReadSegment(position, new RdmaSegment(handle, length, offset));
    }
}
