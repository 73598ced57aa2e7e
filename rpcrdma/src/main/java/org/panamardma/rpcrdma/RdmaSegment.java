package org.panamardma.rpcrdma;

/**
 * A registered memory region a peer may read or write by RDMA: {@code xdr_rdma_segment} of
 * draft-ietf-nfsv4-rpcrdma-08 section 4.3 ({@code rpcrdma1_segment}, RFC 8166 section 3.4.3).
 *
 * @param handle the steering tag (R_key) of the registration, as its 32 bits
 * @param length the segment's length in bytes; XDR {@code uint32}, limited here to 0..2<sup>31</sup>-1
 * @param offset the virtual address or offset of the first byte, as its 64 bits
 */
public record RdmaSegment(int handle, int length, long offset) {
    /** Encoded size: handle, length, 64-bit offset. */
    public static final int XDR_SIZE = 16;

    /**
     * Checks the length.
     *
     * @throws IllegalArgumentException if {@code length} is negative
     */
    public RdmaSegment {
        if (length < 0) {
            throw new IllegalArgumentException("segment length " + Integer.toUnsignedString(length) + " beyond 2^31-1");
        }
    }
}
