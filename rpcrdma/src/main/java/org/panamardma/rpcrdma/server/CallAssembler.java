package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.panamardma.rpcrdma.ChunkRoundup;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.ReadChunk;
import org.panamardma.rpcrdma.RpcRdmaHeader;

/**
 * Rebuilds the full RPC call from what arrived inline and the Read chunks it names (RFC 8166 section 3.4.5;
 * draft-ietf-nfsv4-rpcrdma-08 sections 3.5, 3.7 and 5.1).
 *
 * <p>The inline part is the reduced XDR stream: each chunked item and its roundup are missing from it. Each Read
 * chunk's position is the offset in the full stream where its data belongs; the data is pulled by RDMA Read, and the
 * roundup the sender left out is put back as zeros, so the next inline item lands on its 4-byte boundary (draft
 * section 3.7). A chunk whose length already includes the roundup (allowed by the draft) gets no extra padding.
 *
 * <p>A position-zero Read chunk (only in RDMA_NOMSG, checked by {@link org.panamardma.rpcrdma.ReadListPositions})
 * carries the whole call (a long call, RFC 8166 section 3.5.3; draft section 5.1); it then is the stream the other
 * chunks' positions refer to.
 *
 * <p>Positions must have been validated with {@link org.panamardma.rpcrdma.ReadListPositions#validate} first.
 */
final class CallAssembler {
    private CallAssembler() {}

    /** How the call arrived. */
    enum CallPath {
        /** Wholly inline. */
        INLINE,
        /** Inline with one or more Read chunks inserted. */
        READ_CHUNKS,
        /** In a position-zero Read chunk (RDMA_NOMSG), possibly with further Read chunks. */
        POSITION_ZERO
    }

    /** The call's full XDR stream and how it came. */
    record Assembled(MemorySegment call, CallPath path) {}

    /** Where a call with Read chunks is assembled: memory of the given size, its contents anything. */
    @FunctionalInterface
    interface Room {
        /**
         * @throws MemoryRefused if the budgets could not give it
         * @throws IOException if the transport could not provide it (the connection is lost)
         */
        MemorySegment take(long bytes) throws IOException;
    }

    /**
     * @param header a decoded RDMA_MSG or RDMA_NOMSG header
     * @param inline the bytes after the header (the reduced call for RDMA_MSG; ignored for RDMA_NOMSG)
     * @param transfers pulls the chunks
     * @param maxCallSize the largest full call accepted
     * @param memory the call's memory: a long call's stream is taken from its heap budget
     * @param room where the call is assembled when it has Read chunks after the inline part: a device's transfers
     *     give registered memory their RDMA Reads land in ({@link CallTransfers#assembly}), no copy after them
     * @throws MemoryRefused if the budgets could not give the memory the call needs
     * @throws ChunkFault if the call is longer than {@code maxCallSize} or an RDMA_NOMSG carries no call
     * @throws IOException if an RDMA Read failed (the connection is lost)
     */
    static Assembled assemble(
            RpcRdmaHeader.WithChunks header,
            MemorySegment inline,
            ChunkTransfers transfers,
            int maxCallSize,
            CallMemory memory,
            Room room)
            throws ChunkFault, IOException {
        List<ReadChunk> chunks = header.chunks().readChunks();
        MemorySegment stream = inline;
        int first = 0;
        CallPath path = chunks.isEmpty() ? CallPath.INLINE : CallPath.READ_CHUNKS;
        if (!chunks.isEmpty() && chunks.get(0).position() == 0) {
            ReadChunk whole = chunks.get(0);
            if (whole.length() > maxCallSize) {
                throw new ChunkFault("a long call of " + whole.length() + " bytes, at most " + maxCallSize);
            }
            stream = memory.heap(whole.length());
            transfers.read(whole.segments(), stream);
            first = 1;
            path = CallPath.POSITION_ZERO;
        } else if (header instanceof RdmaNoMsg) {
            // RFC 8166 section 3.5.3: an RDMA_NOMSG call is carried in a position-zero Read chunk; without one there
            // is no call to process.
            throw new ChunkFault("RDMA_NOMSG call without a position-zero Read chunk");
        }
        long total = stream.byteSize();
        for (int i = first; i < chunks.size(); i++) {
            total += ChunkRoundup.roundUp(chunks.get(i).length());
        }
        if (total > maxCallSize) {
            throw new ChunkFault("a call of " + total + " bytes with its Read chunks, at most " + maxCallSize);
        }
        if (first == chunks.size()) {
            return new Assembled(stream, path);
        }
        MemorySegment call = room.take(total);
        long from = 0; // next byte of the reduced stream
        long to = 0; // next byte of the full stream
        for (int i = first; i < chunks.size(); i++) {
            ReadChunk chunk = chunks.get(i);
            long inlineBytes = chunk.position() - to; // validated: the reduced stream holds them
            MemorySegment.copy(stream, from, call, to, inlineBytes);
            from += inlineBytes;
            to += inlineBytes;
            transfers.read(chunk.segments(), call.asSlice(to, chunk.length()));
            long padded = ChunkRoundup.roundUp(chunk.length());
            // the roundup the sender left out, as zeros (the room's memory may hold an earlier call's bytes)
            call.asSlice(to + chunk.length(), padded - chunk.length()).fill((byte) 0);
            to += padded;
        }
        MemorySegment.copy(stream, from, call, to, stream.byteSize() - from);
        if (first == 1) {
            memory.freeHeap(stream); // the long call's bytes now live in the assembled call
        }
        return new Assembled(call, path);
    }
}
