package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcReply;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RdmaProcedure;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.XdrDecoder;

/**
 * Turns a received transport header and what the server placed into our chunks into an {@link RpcRdmaReply}, or
 * the typed exception the reply means (RFC 8166 sections 3.5 and 4.5). Pure: no device, host-tested; the client
 * calls it on its receive thread with the call's plan and memory.
 */
final class ReplyDecoding {
    private ReplyDecoding() {}

    /**
     * @param what names the call in messages
     * @param header the decoded transport header of the reply
     * @param inlineMessage the RPC message that followed the header in the Send (RDMA_MSG)
     * @param plan how the call was sent
     * @param expectation the call's placement targets
     * @param replyChunk the Reply chunk memory offered, or {@code null}
     * @param bounces per placement target, the native buffer the server wrote instead of a heap target, or null
     * @return the reply; its bytes are copies (heap), placement targets are filled
     * @throws RpcRdmaException for RDMA_ERROR (typed) or an unusable reply ({@link RpcRdmaException.BadReply})
     */
    static RpcRdmaReply decode(
            String what,
            RpcRdmaHeader header,
            MemorySegment inlineMessage,
            CallPlan plan,
            ReplyExpectation expectation,
            MemorySegment replyChunk,
            List<MemorySegment> bounces)
            throws RpcRdmaException {
        return decode(what, header, inlineMessage, plan, expectation, replyChunk, bounces, null);
    }

    /**
     * {@link #decode(String, RpcRdmaHeader, MemorySegment, CallPlan, ReplyExpectation, MemorySegment, List)}, also
     * checking that the chunks the reply returns are those the call offered ({@code offered}, the call's own chunk
     * lists; null skips the check): the same segments, handles and offsets, lengths no larger (RFC 8166 section
     * 3.4.6: the responder returns the Write list and the Reply chunk with the lengths it wrote). A server claiming
     * to have written elsewhere, or more than it was given, is a bad reply, not a smaller one.
     */
    static RpcRdmaReply decode(
            String what,
            RpcRdmaHeader header,
            MemorySegment inlineMessage,
            CallPlan plan,
            ReplyExpectation expectation,
            MemorySegment replyChunk,
            List<MemorySegment> bounces,
            ChunkLists offered)
            throws RpcRdmaException {
        try {
            return switch (header) {
                case RdmaMsg msg ->
                    reply(
                            checked(msg.chunks(), offered),
                            copy(inlineMessage),
                            plan,
                            expectation,
                            bounces,
                            RdmaProcedure.RDMA_MSG,
                            replyChunk != null);
                case RdmaNoMsg noMsg ->
                    reply(
                            checked(noMsg.chunks(), offered),
                            replyChunkContents(noMsg.chunks(), replyChunk),
                            plan,
                            expectation,
                            bounces,
                            RdmaProcedure.RDMA_NOMSG,
                            true);
                case RdmaError.VersionMismatch v ->
                    throw new RpcRdmaException.VersionError(
                            what
                                    + ": the server refused the call with ERR_VERS (it speaks versions " + v.low()
                                    + " to "
                                    + v.high() + ")",
                            v.low(),
                            v.high());
                case RdmaError.ChunkError c ->
                    throw new RpcRdmaException.ChunkError(
                            what + ": the server refused the call with ERR_CHUNK", RdmaError.ERR_CHUNK);
                case RdmaError.Unrecognized u ->
                    throw new RpcRdmaException.ChunkError(
                            what + ": the server refused the call with RDMA_ERROR code " + u.code(), u.code());
                default -> throw new IllegalStateException("unexpected " + header.procedure() + " in a reply");
            };
        } catch (RuntimeException e) { // XdrException from the RPC header, inconsistent chunks
            throw new RpcRdmaException.BadReply(what + ": unusable reply: " + e.getMessage(), e);
        }
    }

    /**
     * An RDMA_ERROR with ERR_VERS whose version word is not 1, which the header decoder refuses: Linux knfsd
     * (svc_rdma_send_error) echoes the version of the header it refuses, so its answer to a version-2 header says
     * version 2. Recognized by its shape: xid, any version, credits, RDMA_ERROR, ERR_VERS, low, high.
     *
     * @return the error, or empty if the message is not of that shape
     */
    static Optional<RdmaError.VersionMismatch> errVersEchoingOurVersion(MemorySegment message) {
        if (message.byteSize() < 7 * 4) {
            return Optional.empty();
        }
        XdrDecoder in = new XdrDecoder(message);
        int xid = in.getInt();
        in.getInt(); // the echoed version
        int credits = in.getInt();
        if (in.getInt() != RdmaProcedure.RDMA_ERROR.value() || in.getInt() != RdmaError.ERR_VERS) {
            return Optional.empty();
        }
        return Optional.of(new RdmaError.VersionMismatch(xid, credits, in.getInt(), in.getInt()));
    }

    /** {@code returned} if it carries no Read list and echoes the chunks of {@code offered}; else it throws. */
    private static ChunkLists checked(ChunkLists returned, ChunkLists offered) {
        if (!returned.readList().isEmpty()) {
            // the draft's Read chunks in replies (acknowledged with RDMA_DONE) are retired: RFC 8166 section 4.6.2
            throw new IllegalStateException("the reply carries a Read list ("
                    + returned.readList().size() + " segments): a requester takes no Read chunks from a reply");
        }
        if (offered == null) {
            return returned;
        }
        if (returned.writeList().size() > offered.writeList().size()) {
            throw new IllegalStateException(
                    "the reply returns " + returned.writeList().size() + " Write chunks, the " + "call offered "
                            + offered.writeList().size());
        }
        for (int i = 0; i < returned.writeList().size(); i++) {
            echoes(returned.writeList().get(i), offered.writeList().get(i), "Write chunk " + i);
        }
        if (returned.replyChunk().isPresent()) {
            echoes(
                    returned.replyChunk().get(),
                    offered.replyChunk()
                            .orElseThrow(() -> new IllegalStateException(
                                    "the reply returns a Reply chunk the call did not offer")),
                    "the Reply chunk");
        }
        return returned;
    }

    private static void echoes(WriteChunk returned, WriteChunk offered, String which) {
        if (returned.segments().size() != offered.segments().size()) {
            throw new IllegalStateException(
                    which + " comes back with " + returned.segments().size() + " segments, "
                            + offered.segments().size() + " were offered");
        }
        for (int s = 0; s < returned.segments().size(); s++) {
            RdmaSegment r = returned.segments().get(s);
            RdmaSegment o = offered.segments().get(s);
            if (r.handle() != o.handle()
                    || r.offset() != o.offset()
                    || Integer.toUnsignedLong(r.length()) > Integer.toUnsignedLong(o.length())) {
                throw new IllegalStateException(which + " segment " + s + " comes back as " + r + ", the call offered "
                        + o + ": the same handle and offset, at most its length");
            }
        }
    }

    private static MemorySegment copy(MemorySegment bytes) {
        return MemorySegment.ofArray(bytes.toArray(ValueLayout.JAVA_BYTE));
    }

    /** RDMA_NOMSG: the RPC reply is what the server wrote to our Reply chunk, its returned length. */
    private static MemorySegment replyChunkContents(ChunkLists chunks, MemorySegment offered) {
        if (offered == null) {
            throw new IllegalStateException("RDMA_NOMSG reply, but the call offered no Reply chunk");
        }
        WriteChunk returned = chunks.replyChunk()
                .orElseThrow(() -> new IllegalStateException("RDMA_NOMSG reply without a Reply chunk"));
        long length = returned.length();
        if (length > offered.byteSize()) {
            throw new IllegalStateException(
                    "Reply chunk length " + length + " exceeds the " + offered.byteSize() + " bytes offered");
        }
        return copy(offered.asSlice(0, length));
    }

    private static RpcRdmaReply reply(
            ChunkLists chunks,
            MemorySegment rpcMessage,
            CallPlan plan,
            ReplyExpectation expectation,
            List<MemorySegment> bounces,
            RdmaProcedure procedure,
            boolean replyChunkOffered) {
        XdrDecoder in = new XdrDecoder(rpcMessage);
        RpcMessage message = RpcMessageCodec.decode(in);
        if (!(message instanceof RpcReply reply)) {
            throw new IllegalStateException("a CALL where a reply was expected");
        }
        MemorySegment results = in.rest();
        List<WriteChunk> writeList = chunks.writeList();
        if (writeList.size() > plan.writeChunkCount()) {
            throw new IllegalStateException("the reply returns " + writeList.size() + " Write chunks, the call offered "
                    + plan.writeChunkCount());
        }
        List<RpcRdmaReply.Placement> placements = new ArrayList<>();
        List<MemorySegment> targets = expectation.placementTargets();
        int chunkIndex = 0;
        for (int i = 0; i < targets.size(); i++) {
            MemorySegment target = targets.get(i);
            if (!plan.writeTargets().get(i)) {
                placements.add(new RpcRdmaReply.Placement(target, false, 0));
                continue;
            }
            // RFC 8166 section 3.4.6: the responder returns each Write chunk with the lengths it wrote (an unused
            // chunk with length 0); a chunk not returned at all was not written
            long length =
                    chunkIndex < writeList.size() ? writeList.get(chunkIndex).length() : 0;
            chunkIndex++;
            if (length > target.byteSize()) {
                throw new IllegalStateException("Write chunk " + (chunkIndex - 1) + " returned " + length + " bytes, "
                        + target.byteSize() + " were offered");
            }
            MemorySegment bounce = bounces.get(i);
            if (bounce != null && length > 0) {
                MemorySegment.copy(bounce, 0, target, 0, length);
            }
            placements.add(new RpcRdmaReply.Placement(target, true, length));
        }
        return new RpcRdmaReply(reply, results, placements, plan.kind(), procedure, replyChunkOffered);
    }
}
