package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * How one call travels (the output of {@link ChunkPlanner}), before any memory is registered.
 *
 * @param kind the call's form
 * @param message the RPC call message to send inline after the transport header: the whole call
 *     ({@link Kind#INLINE}), the call reduced by its Read chunks ({@link Kind#READ_CHUNKS}), or the whole call that
 *     goes in the position-zero Read chunk ({@link Kind#POSITION_ZERO}, nothing inline)
 * @param readItems the DDP-eligible argument items moved to Read chunks, in stream order ({@link Kind#READ_CHUNKS})
 * @param writeTargets for each {@link ReplyExpectation#placementTargets()} entry, whether it is offered as a Write
 *     chunk (in that order, those with {@code true} form the Write list)
 * @param replyChunkLength the length of the Reply chunk to offer, 0 for none
 */
public record CallPlan(
        Kind kind, MemorySegment message, List<ReadItem> readItems, List<Boolean> writeTargets, long replyChunkLength) {
    /** Copies the lists. */
    public CallPlan {
        readItems = List.copyOf(readItems);
        writeTargets = List.copyOf(writeTargets);
    }

    /** The forms of a call (RFC 8166 section 3.5). */
    public enum Kind {
        /** RDMA_MSG, the call wholly inline, no Read list. */
        INLINE,
        /** RDMA_MSG, eligible items in Read chunks at their XDR positions, the rest inline. */
        READ_CHUNKS,
        /** RDMA_NOMSG, the whole call in a position-zero Read chunk (a Long Call, RFC 8166 section 3.5.3). */
        POSITION_ZERO
    }

    /**
     * One argument item in a Read chunk.
     *
     * @param position its XDR position in the full call: where its data starts, after its length word
     * @param data its bytes, without roundup (RFC 8166 section 3.4.5.2)
     */
    public record ReadItem(long position, MemorySegment data) {}

    /** {@return how many Write chunks are offered} */
    public int writeChunkCount() {
        return (int) writeTargets.stream().filter(b -> b).count();
    }
}
