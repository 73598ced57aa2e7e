package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.List;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.RpcReply;
import org.panamardma.rpcrdma.RdmaProcedure;
import org.panamardma.xdr.XdrDecoder;

/**
 * A reply received by {@link RpcRdmaClient}: the RPC reply header, the results as the server sent them (the
 * reduced stream when items were placed in Write chunks), and what was placed where. Its memory is the client's
 * own copy (heap), valid for as long as the caller keeps the object.
 *
 * @param header the RPC reply header (accepted or denied)
 * @param results the results after the header (empty unless accepted with SUCCESS)
 * @param placements one per {@link ReplyExpectation#placementTargets()} entry, in order
 * @param callKind how the call was sent
 * @param replyProcedure RDMA_MSG (reply inline) or RDMA_NOMSG (reply in our Reply chunk)
 * @param replyChunkOffered whether the call offered a Reply chunk
 */
public record RpcRdmaReply(
        RpcReply header,
        MemorySegment results,
        List<Placement> placements,
        CallPlan.Kind callKind,
        RdmaProcedure replyProcedure,
        boolean replyChunkOffered) {
    /** Copies the placements. */
    public RpcRdmaReply {
        placements = List.copyOf(placements);
    }

    /**
     * One placement target.
     *
     * @param target the caller's memory
     * @param writeChunk whether it was offered as a Write chunk
     * @param length the bytes the server wrote into it (the returned Write chunk length), 0 if not offered
     */
    public record Placement(MemorySegment target, boolean writeChunk, long length) {
        /** {@return the written bytes: a slice of the target} */
        public MemorySegment placed() {
            return target.asSlice(0, length);
        }
    }

    /** {@return the accept status, or {@code null} if the call was denied (RPC_MISMATCH, AUTH_ERROR)} */
    public AcceptStat acceptStat() {
        return header instanceof AcceptedReply a ? a.stat() : null;
    }

    /** {@return whether the call was accepted with SUCCESS} */
    public boolean isSuccess() {
        return acceptStat() == AcceptStat.SUCCESS;
    }

    /** {@return a fresh decoder over the results} */
    public XdrDecoder resultsDecoder() {
        return new XdrDecoder(results);
    }

    /**
     * {@return what the server wrote into placement target {@code i} (empty if it got no Write chunk)}
     *
     * @param i the target's index in the call's {@link ReplyExpectation#placementTargets()}
     */
    public MemorySegment placed(int i) {
        return placements.get(i).placed();
    }

    /** {@return whether any target was written through the Write list} */
    public boolean usedWriteList() {
        return placements.stream().anyMatch(Placement::writeChunk);
    }
}
