package org.panamardma.rpcrdma;

import java.util.List;

/**
 * A Write chunk, or the Reply chunk: {@code xdr_write_chunk} of draft-ietf-nfsv4-rpcrdma-08 section 4.3
 * ({@code rpcrdma1_write_chunk}, RFC 8166 section 3.4.6), a counted array of segments the responder fills in order
 * by RDMA Write. In a reply the segment lengths are rewritten to what was actually written.
 *
 * @param segments the segments, in fill order
 */
public record WriteChunk(List<RdmaSegment> segments) {
    /** Copies the segments. */
    public WriteChunk {
        segments = List.copyOf(segments);
    }

    /**
     * A chunk of the given segments.
     *
     * @param segments the segments, in fill order
     * @return the chunk
     */
    public static WriteChunk of(RdmaSegment... segments) {
        return new WriteChunk(List.of(segments));
    }

    /**
     * {@return the chunk's capacity (or, in a reply, the bytes written): the sum of its segment lengths}
     *
     * @throws ArithmeticException if the sum exceeds 2<sup>31</sup>-1
     */
    public int length() {
        int total = 0;
        for (RdmaSegment segment : segments) {
            total = Math.addExact(total, segment.length());
        }
        return total;
    }

    /** {@return the encoded size: the segment count and the segments} */
    public int xdrSize() {
        return 4 + segments.size() * RdmaSegment.XDR_SIZE;
    }
}
