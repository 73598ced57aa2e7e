package org.panamardma.rpcrdma;

/**
 * Bounds a decoder enforces on untrusted transport headers, so that a header cannot make it allocate or promise
 * more than the transport is prepared to handle.
 *
 * @param maxReadSegments the most Read list entries (segments, over all Read chunks)
 * @param maxWriteChunks the most chunks in the Write list
 * @param maxSegmentsPerChunk the most segments in one Write chunk or the Reply chunk
 * @param maxSegmentLength the longest segment, in bytes, at most 2<sup>31</sup>-1
 */
public record HeaderLimits(int maxReadSegments, int maxWriteChunks, int maxSegmentsPerChunk, int maxSegmentLength) {
    /**
     * Defaults sized for NFS over RDMA: 64 read segments and 64 segments per chunk cover a 1 MiB payload in 4 KiB
     * pages four times over (Linux registers at most a few dozen segments per chunk); 16 Write chunks cover NFSv4
     * COMPOUNDs with several READs; a segment of up to 16 MiB is far above any rsize/wsize in use, yet small
     * enough that no chunk of the default segment count can overflow a 32-bit length.
     */
    public static final HeaderLimits DEFAULT = new HeaderLimits(64, 16, 64, 16 << 20);

    /**
     * Checks the limits.
     *
     * @throws IllegalArgumentException if a limit is negative
     */
    public HeaderLimits {
        if (maxReadSegments < 0 || maxWriteChunks < 0 || maxSegmentsPerChunk < 0 || maxSegmentLength < 0) {
            throw new IllegalArgumentException("limits must not be negative");
        }
    }
}
