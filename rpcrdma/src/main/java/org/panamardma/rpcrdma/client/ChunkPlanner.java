package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.ChunkRoundup;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.DataPlacement;
import org.panamardma.xdr.Xdr;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * Decides how a call and its reply travel (RFC 8166 sections 3.4 and 3.5; draft-ietf-nfsv4-rpcrdma-08 sections
 * 3.4-3.7). Pure: it encodes the call into heap memory and sizes the chunks; the transport registers memory after.
 *
 * <p><b>Call.</b> (1) If transport header plus whole call fit the send threshold (the smaller of our send size and
 * the peer's receive size, RFC 8797 section 7.2) the call goes inline as RDMA_MSG: a short call. (2) Otherwise each
 * DDP-eligible argument item ({@link XdrEncoder#putEligibleOpaque}) of at least {@code readChunkMinimum} bytes is
 * taken into a Read chunk at its XDR position, its roundup left out of the chunk and of the inline stream (RFC 8166
 * section 3.4.5.2, draft section 3.7), and the reduced call goes inline. (3) If that still does not fit, the call is
 * a Long Call: RDMA_NOMSG with the whole call in one position-zero Read chunk (RFC 8166 section 3.5.3) - the form
 * Linux xprtrdma uses too.
 *
 * <p><b>Reply.</b> Each placement target of at least {@code writeChunkMinimum} bytes becomes a Write chunk (the Write
 * list, RFC 8166 section 3.4.6). A Reply chunk is offered when the largest possible reply, less the items placed
 * in Write chunks, might not fit our receive threshold (RFC 8166 section 3.5.3) - or always, if so configured. As
 * in Linux xprtrdma, a call offers a Write list or a Reply chunk, never both: when a Reply chunk is needed, no
 * Write chunk is offered and eligible results travel in the Reply chunk.
 */
public final class ChunkPlanner {
    /**
     * Room for an RPC reply header: xid, msg_type, reply_stat, verifier (flavor, length, up to 400 bytes), accept_stat
     * (RFC 5531 section 9), rounded up.
     */
    public static final int MAX_REPLY_HEADER = 512;
    /** A fixed transport header of a reply without chunks: xid, vers, credit, proc, three empty lists. */
    static final int REPLY_TRANSPORT_FIXED = 7 * Xdr.INT_SIZE;
    /** The biggest call encoded before giving up (the largest NFS WRITE plus headers is well below). */
    static final int MAX_CALL = 64 << 20;

    private final int sendThreshold;
    private final int receiveThreshold;
    private final int readChunkMinimum;
    private final int writeChunkMinimum;
    private final boolean alwaysReplyChunk;

    /**
     * A planner for one connection's thresholds.
     *
     * @param sendThreshold the largest inline message we may send (transport header included)
     * @param receiveThreshold the largest inline message we can receive (transport header included)
     * @param readChunkMinimum eligible argument items smaller than this stay inline
     * @param writeChunkMinimum placement targets smaller than this get no Write chunk
     * @param alwaysReplyChunk offer a Reply chunk with every call
     */
    public ChunkPlanner(
            int sendThreshold,
            int receiveThreshold,
            int readChunkMinimum,
            int writeChunkMinimum,
            boolean alwaysReplyChunk) {
        if (sendThreshold < 1024 || receiveThreshold < 1024) {
            throw new IllegalArgumentException("inline thresholds below the 1024-byte minimum of RFC 8166 3.3.3");
        }
        this.sendThreshold = sendThreshold;
        this.receiveThreshold = receiveThreshold;
        this.readChunkMinimum = Math.max(0, readChunkMinimum);
        this.writeChunkMinimum = Math.max(0, writeChunkMinimum);
        this.alwaysReplyChunk = alwaysReplyChunk;
    }

    /** {@return the send threshold in use} */
    public int sendThreshold() {
        return sendThreshold;
    }

    /** {@return the receive threshold in use} */
    public int receiveThreshold() {
        return receiveThreshold;
    }

    /**
     * Plans one call.
     *
     * @param call the RPC call header
     * @param arguments the procedure's arguments (encoded up to three times; must be repeatable)
     * @param expectation the reply's size bound and placement targets
     * @return how the call and its reply travel
     * @throws XdrException if the arguments do not encode (or exceed {@value #MAX_CALL} bytes)
     */
    public CallPlan plan(RpcCall call, XdrEncodable arguments, ReplyExpectation expectation) {
        List<Boolean> writeTargets = new ArrayList<>();
        long placed = 0;
        for (MemorySegment target : expectation.placementTargets()) {
            boolean chunk = target.byteSize() >= writeChunkMinimum && target.byteSize() > 0;
            writeTargets.add(chunk);
            if (chunk) {
                placed += Xdr.roundUp(target.byteSize());
            }
        }
        long replyChunk = replyChunkLength(expectation, placed, writeTargets);
        if (replyChunk > 0 && writeTargets.contains(true)) {
            // Never a Write list and a Reply chunk together, as Linux xprtrdma (rpcrdma_marshal_req: a reply is
            // "writech" or "replych"; rpcrdma_decode_nomsg refuses RDMA_NOMSG with a Write list). Seen in the
            // testbed: knfsd (6.12) given both put a READ's data in the Write chunk and again in the Reply chunk.
            // The Reply chunk wins (it must hold the whole reply): the item then travels in it, in the stream.
            writeTargets.replaceAll(b -> false);
            replyChunk = replyChunkLength(expectation, 0, writeTargets);
        }
        int headerWithoutReads = headerSize(0, writeTargets, replyChunk);

        MemorySegment whole = encode(call, arguments, DataPlacement.INLINE);
        if (headerWithoutReads + whole.byteSize() <= sendThreshold) {
            return new CallPlan(CallPlan.Kind.INLINE, whole, List.of(), writeTargets, replyChunk);
        }
        List<CallPlan.ReadItem> items = new ArrayList<>();
        DataPlacement takeLarge = new DataPlacement() {
            @Override
            public boolean placeDirectly(long streamPosition, MemorySegment data) {
                if (data.byteSize() < readChunkMinimum || data.byteSize() == 0) {
                    return false;
                }
                items.add(new CallPlan.ReadItem(streamPosition, data));
                return true;
            }

            @Override
            public void discardFrom(long streamPosition) {
                items.removeIf(i -> i.position() >= streamPosition);
            }
        };
        MemorySegment reduced = encode(call, arguments, takeLarge);
        if (!items.isEmpty()
                && headerSize(items.size(), writeTargets, replyChunk) + reduced.byteSize() <= sendThreshold) {
            return new CallPlan(CallPlan.Kind.READ_CHUNKS, reduced, items, writeTargets, replyChunk);
        }
        return new CallPlan(CallPlan.Kind.POSITION_ZERO, whole, List.of(), writeTargets, replyChunk);
    }

    private long replyChunkLength(ReplyExpectation expectation, long placed, List<Boolean> writeTargets) {
        long max = expectation.maxResultsSize();
        if (max < 0) {
            return alwaysReplyChunk ? receiveThreshold : 0;
        }
        long reducedReply = MAX_REPLY_HEADER + Math.max(0, max - placed);
        // the reply's transport header echoes the Write list (with the lengths written)
        long replyHeader = REPLY_TRANSPORT_FIXED
                + writeTargets.stream().filter(b -> b).count() * (2L * Xdr.INT_SIZE + RdmaSegment.XDR_SIZE);
        if (alwaysReplyChunk || replyHeader + reducedReply > receiveThreshold) {
            return ChunkRoundup.roundUp(reducedReply);
        }
        return 0;
    }

    /** The size of our call's transport header with {@code reads} Read segments and the planned reply chunks. */
    static int headerSize(int reads, List<Boolean> writeTargets, long replyChunk) {
        RdmaSegment any = new RdmaSegment(0, 0, 0);
        List<ReadSegment> readList = new ArrayList<>();
        for (int i = 0; i < reads; i++) {
            readList.add(new ReadSegment(4 * (i + 1), any));
        }
        List<WriteChunk> writeList = writeTargets.stream()
                .filter(b -> b)
                .map(b -> WriteChunk.of(any))
                .toList();
        Optional<WriteChunk> reply = replyChunk > 0 ? Optional.of(WriteChunk.of(any)) : Optional.empty();
        return RpcRdmaHeaderEncoder.size(new RdmaMsg(0, 0, new ChunkLists(readList, writeList, reply)));
    }

    /** Encodes header and arguments into a heap buffer that grows until they fit. */
    static MemorySegment encode(RpcCall call, XdrEncodable arguments, DataPlacement placement) {
        int size = Math.max(4096, RpcMessageCodec.size(call) + 1024);
        while (true) {
            MemorySegment buffer = MemorySegment.ofArray(new byte[size]);
            XdrEncoder out = new XdrEncoder(buffer, 0, placement);
            try {
                RpcMessageCodec.encode(call, out);
                arguments.encodeTo(out);
                return out.written(0);
            } catch (XdrException e) {
                if (e.reason() != XdrException.Reason.NO_SPACE || size >= MAX_CALL) {
                    throw e;
                }
                placement.discardFrom(0);
                size = (int) Math.min((long) size * 4, MAX_CALL);
            }
        }
    }
}
