package org.panamardma.rpcrdma;

/**
 * Why a transport header was refused. Each fault is distinct so that a transport can choose its answer and tests
 * can tell them apart; {@link RpcRdmaHeaderException#responderReply} turns one into the RDMA_ERROR a responder
 * sends (RFC 8166 section 4.5): ERR_VERS for {@link #VERSION_MISMATCH}, ERR_CHUNK for every other fault found
 * after a recognized version, nothing (drop) when not even the version could be read.
 */
public enum HeaderFault {
    /** The message ends inside the header. */
    TRUNCATED,
    /** {@code rdma_vers} is not 1 (RFC 8166 section 4.5.1): answer ERR_VERS with the range 1..1. */
    VERSION_MISMATCH,
    /** {@code rdma_proc} is not one of 0..4 (RFC 8166 section 4.5.2). */
    UNKNOWN_PROCEDURE,
    /** An optional-data discriminator of a list or the Reply chunk is neither 0 nor 1. */
    BAD_DISCRIMINATOR,
    /** The Read list has more segments than {@link HeaderLimits#maxReadSegments()}. */
    TOO_MANY_READ_SEGMENTS,
    /** The Write list has more chunks than {@link HeaderLimits#maxWriteChunks()}. */
    TOO_MANY_WRITE_CHUNKS,
    /** A Write or Reply chunk declares more segments than {@link HeaderLimits#maxSegmentsPerChunk()}. */
    TOO_MANY_SEGMENTS,
    /**
     * A Write or Reply chunk declares no segment. XDR allows the empty array, but such a chunk offers no memory and
     * has no length to fill: a Write chunk's data or a reply cannot be placed in it. Refused, as a bug of this
     * shape (a zero-segment Write chunk) crashed the Linux server.
     */
    EMPTY_CHUNK,
    /** A segment is longer than {@link HeaderLimits#maxSegmentLength()}. */
    SEGMENT_TOO_LONG,
    /** The segment lengths of one chunk add up to more than 2<sup>31</sup>-1 bytes. */
    LENGTH_OVERFLOW,
    /** A Read list position is smaller than the one before it. */
    POSITION_DECREASING,
    /** A Read chunk's position lies beyond the end of the RPC message. */
    POSITION_BEYOND_MESSAGE,
    /** A Read chunk's position is not a multiple of 4: XDR items start on 4-byte boundaries. */
    POSITION_MISALIGNED,
    /** A Read chunk starts inside the XDR extent of the Read chunk before it. */
    POSITION_OVERLAPS_CHUNK,
    /** A position-zero Read chunk in a message that carries its RPC message inline (RDMA_MSG or RDMA_MSGP). */
    MISPLACED_POSITION_ZERO,
    /** RDMA_NOMSG with no chunk at all, so no RPC message anywhere (RFC 8166 section 4.5.2). */
    NOMSG_WITHOUT_CHUNKS
}
