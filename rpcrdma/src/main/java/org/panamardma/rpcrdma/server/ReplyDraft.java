package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reply side of one call, as svcrdma's svc_rdma_sendto: where the reply is encoded ({@link #encoder()}: the Send
 * buffer after room for the transport header, grown from the call's budget up to what the client can take), its
 * DDP-eligible items taken for the client's Write chunks ({@link WriteListPlacement}), then, once the service has
 * encoded it, {@link #complete}: the Write list's items and, for a reply too long for inline, the reduced reply
 * handed to the {@link ChunkTransfers} for the Reply chunk (RDMA_NOMSG, RFC 8166 section 3.5.4), and the transport
 * header (RDMA_MSG with the returned Write list, RFC 8166 section 3.4.6) written in front. A reply that fits neither
 * inline nor the Reply chunk, or whose item is larger than its Write chunk, becomes ERR_CHUNK (RFC 8166 section
 * 4.5.2). Not thread-safe: one call.
 */
final class ReplyDraft {
    private static final Logger LOG = LoggerFactory.getLogger(ReplyDraft.class);

    private final int xid;
    private final int grant;
    private final ChunkLists chunks;
    private final MemorySegment out;
    private final Answers answers;
    private final long headerSize;
    private final long inlineRoom;
    private final MemorySegment first;
    private final long limit;
    private final long maxReplySize;
    private final ReplyGrowth growth;
    private final WriteListPlacement placement;
    private final XdrEncoder encoder;

    /**
     * @param chunks the call's chunk lists: its Write list and Reply chunk say where the reply may go
     * @param out the Send buffer, at most the client's inline threshold
     * @param maxReplySize this server's largest reply
     */
    ReplyDraft(
            int xid,
            int grant,
            ChunkLists chunks,
            MemorySegment out,
            long maxReplySize,
            CallMemory memory,
            Answers answers) {
        this.xid = xid;
        this.grant = grant;
        this.chunks = chunks;
        this.out = out;
        this.answers = answers;
        this.maxReplySize = maxReplySize;
        // The reply is encoded straight into the Send buffer, after room for the RDMA_MSG header (whose size the
        // Write list's shape fixes: the returned list has the offered chunks and segment counts), and grows into
        // heap memory from the call's budget only if it does not fit there: as far as the reply really needs,
        // never further than the client can take (its Reply chunk) nor than this server's largest reply. What a
        // client declares is a limit, never an allocation.
        RdmaMsg shape = new RdmaMsg(xid, grant, new ChunkLists(List.of(), chunks.writeList(), Optional.empty()));
        this.headerSize = RpcRdmaHeaderEncoder.size(shape);
        this.inlineRoom = Math.max(0, out.byteSize() - headerSize);
        this.first = inlineRoom > 0 ? out.asSlice(headerSize, inlineRoom) : MemorySegment.NULL;
        this.limit = Math.max(
                inlineRoom,
                chunks.replyChunk()
                        .map(c -> Math.min((long) c.length(), maxReplySize))
                        .orElse(0L));
        this.growth = new ReplyGrowth(first, limit, memory);
        this.placement = new WriteListPlacement(chunks.writeList());
        this.encoder = new XdrEncoder(first, 0, placement, growth);
    }

    /** {@return where the service encodes the RPC reply} */
    XdrEncoder encoder() {
        return encoder;
    }

    /** ERR_CHUNK when not even an error reply fitted the encoder (a client that left no room for one). */
    RpcRdmaCallHandler.Outcome tooLarge() {
        return answers.chunkError(xid, grant, out);
    }

    /**
     * Moves the reply where the client asked for it and writes its transport header.
     *
     * @param transfers the call's RDMA Writes (staged for the reply's Send on a device)
     * @throws IOException if a Write failed (the connection is lost)
     */
    RpcRdmaCallHandler.Outcome complete(ChunkTransfers transfers) throws IOException {
        if (placement.rewound() && growth.refusedAtLimit() && limit < maxReplySize) {
            // The results did not fit where the client can take them (inline or its Reply chunk), and the
            // service put SYSTEM_ERR in their place: the client's chunks were too small, a chunk error
            // (RFC 8166 section 4.5.2), not a failure of the procedure.
            LOG.debug(
                    "xid {}: reply larger than {} bytes, the most inline or in the Reply chunk",
                    Integer.toHexString(xid),
                    limit);
            return answers.chunkError(xid, grant, out);
        }
        if (placement.fault() != null) {
            LOG.debug("xid {}: {}", Integer.toHexString(xid), placement.fault());
            return answers.chunkError(xid, grant, out);
        }
        for (WriteListPlacement.Placed p : placement.placed()) {
            transfers.write(p.data(), chunks.writeList().get(p.chunk()).segments());
        }
        List<WriteChunk> writeList = placement.returned();
        MemorySegment reduced = encoder.written(0);
        ReplyPath dataPath = placement.placed().isEmpty() ? ReplyPath.INLINE : ReplyPath.WRITE_LIST;
        if (reduced.byteSize() <= inlineRoom) {
            RdmaMsg inlineHeader = new RdmaMsg(xid, grant, new ChunkLists(List.of(), writeList, Optional.empty()));
            XdrEncoder send = new XdrEncoder(out);
            RpcRdmaHeaderEncoder.encode(inlineHeader, send);
            if (send.position() != headerSize) {
                throw new IllegalStateException(
                        "RDMA_MSG header of " + send.position() + " bytes, " + headerSize + " reserved");
            }
            // identity, not contents: whether the encoder moved to another (grown) segment object
            @SuppressWarnings("MemorySegmentReferenceEquality")
            boolean grew = encoder.segment() != first;
            if (grew) {
                // grew, then was rewound to an error reply that fits inline after all
                MemorySegment.copy(reduced, 0, out, headerSize, reduced.byteSize());
            }
            return answers.sent(dataPath, (int) (headerSize + reduced.byteSize()), xid);
        }
        Optional<WriteChunk> replyChunk = chunks.replyChunk();
        if (replyChunk.isEmpty() || reduced.byteSize() > replyChunk.get().length()) {
            // RFC 8166 section 3.5.4: a reply too long for inline goes in the Reply chunk; without room there the
            // responder cannot deliver it and reports the chunk error.
            LOG.debug(
                    "xid {}: reply of {} bytes, Reply chunk {}",
                    Integer.toHexString(xid),
                    reduced.byteSize(),
                    replyChunk.map(WriteChunk::length).map(String::valueOf).orElse("absent"));
            return answers.chunkError(xid, grant, out);
        }
        transfers.write(reduced, replyChunk.get().segments());
        RdmaNoMsg noMsg = new RdmaNoMsg(
                xid,
                grant,
                new ChunkLists(
                        List.of(),
                        writeList,
                        Optional.of(WriteListPlacement.filled(replyChunk.get(), reduced.byteSize()))));
        XdrEncoder send = new XdrEncoder(out);
        try {
            RpcRdmaHeaderEncoder.encode(noMsg, send);
        } catch (XdrException tooManySegments) {
            return answers.chunkError(xid, grant, out);
        }
        return answers.sent(ReplyPath.REPLY_CHUNK, (int) send.position(), xid);
    }
}
