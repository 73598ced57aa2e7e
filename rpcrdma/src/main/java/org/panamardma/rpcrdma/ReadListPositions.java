package org.panamardma.rpcrdma;

import java.util.List;

/**
 * Checks a Read list's positions against the RPC message they point into. Positions are offsets in the full XDR
 * stream (RFC 8166 section 3.4.5), while the receiver holds only the reduced stream, the inline part with the
 * chunked items and their roundup taken out (draft-ietf-nfsv4-rpcrdma-08 section 3.7). So the k-th chunk must start
 * after the inline bytes before it, which number its position minus the rounded-up lengths of the chunks before
 * it, and those bytes must exist.
 *
 * <p>A position-zero Read chunk carries the whole RPC message (RFC 8166 section 3.5.3; draft section 5.1), which is
 * then the stream the other chunks' positions refer to. It belongs in RDMA_NOMSG only.
 */
public final class ReadListPositions {
    private ReadListPositions() {}

    /**
     * Validates the Read list of a decoded header.
     *
     * @param header the decoded header; headers without chunk lists pass
     * @param inlineLength the length of the RPC message that arrived inline after the transport header (for
     *                     RDMA_NOMSG normally 0; ignored when a position-zero chunk carries the message, whose length
     *                     is then the chunk's)
     * @throws RpcRdmaHeaderException with {@link HeaderFault#POSITION_BEYOND_MESSAGE},
     *                                {@link HeaderFault#POSITION_MISALIGNED}, {@link HeaderFault#POSITION_OVERLAPS_CHUNK},
     *                                {@link HeaderFault#POSITION_DECREASING} or
     *                                {@link HeaderFault#MISPLACED_POSITION_ZERO}
     */
    public static void validate(RpcRdmaHeader header, long inlineLength) throws RpcRdmaHeaderException {
        if (!(header instanceof RpcRdmaHeader.WithChunks withChunks)) {
            return;
        }
        List<ReadChunk> chunks = withChunks.chunks().readChunks();
        if (chunks.isEmpty()) {
            return;
        }
        int first = 0;
        long messageLength = inlineLength;
        if (chunks.get(0).position() == 0) {
            if (!(header instanceof RdmaNoMsg)) {
                throw fault(
                        header,
                        HeaderFault.MISPLACED_POSITION_ZERO,
                        "a position-zero Read chunk in " + header.procedure() + ", whose RPC message is inline");
            }
            messageLength = chunks.get(0).length();
            first = 1;
        }
        long chunkBytesBefore = 0; // rounded-up extents of the chunks already passed
        long previousPosition = 0;
        long previousEnd = 0; // XDR position right after the previous chunk
        for (int i = first; i < chunks.size(); i++) {
            ReadChunk chunk = chunks.get(i);
            long position = chunk.position();
            if (position % 4 != 0) {
                throw fault(
                        header,
                        HeaderFault.POSITION_MISALIGNED,
                        "Read chunk at position " + position + ", not a 4-byte XDR boundary");
            }
            if (position < previousPosition) {
                throw fault(
                        header,
                        HeaderFault.POSITION_DECREASING,
                        "Read chunk at position " + position + " after one at position " + previousPosition);
            }
            if (position < previousEnd) {
                throw fault(
                        header,
                        HeaderFault.POSITION_OVERLAPS_CHUNK,
                        "Read chunk at position " + position + " starts inside the previous chunk, which ends at "
                                + previousEnd);
            }
            long inline = position - chunkBytesBefore;
            if (inline > messageLength) {
                throw fault(
                        header,
                        HeaderFault.POSITION_BEYOND_MESSAGE,
                        "Read chunk at position " + position + " needs " + inline
                                + " inline bytes before it, the message has " + messageLength);
            }
            previousPosition = position;
            long extent = ChunkRoundup.roundUp(chunk.length());
            chunkBytesBefore += extent;
            previousEnd = position + extent;
        }
    }

    private static RpcRdmaHeaderException fault(RpcRdmaHeader header, HeaderFault fault, String detail) {
        // Found after decoding: the XID is known and the version was 1. The offset is not that of a header word.
        return new RpcRdmaHeaderException(fault, -1, true, header.xid(), true, detail);
    }
}
