package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.ReplyResources;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.limits.RateLimitedLog;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.ReadListPositions;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of RPC-over-RDMA version 1 for one connection, without the device: takes one received message,
 * answers it into a Send buffer, moving chunk data through {@link ChunkTransfers}.
 *
 * <ol>
 *   <li>The transport header is decoded and checked ({@link RpcRdmaHeaderDecoder}, {@link ReadListPositions}); a
 *       refused one is answered as RFC 8166 section 4.5 says: ERR_VERS with the range 1..1 for another version,
 *       ERR_CHUNK for anything else wrong after a recognized version, including an unknown {@code rdma_proc}
 *       (RFC 8166 section 4.5.2) and the retired RDMA_MSGP (RFC 8166 section 4.6.1: it was never implemented, so a
 *       responder treats it as a header it cannot process); nothing for a message too short to hold a version.
 *       RDMA_DONE (retired, RFC 8166 section 4.6.2; this server never sends Read chunks in replies, so there is
 *       nothing to release) and RDMA_ERROR (errors are never answered, RFC 8166 section 4.5) are dropped.
 *   <li>The call is assembled from the inline part and its Read chunks ({@link CallAssembler}).
 *   <li>The call is run by the {@link RpcService} (an {@link org.panamardma.oncrpc.RpcDispatcher}, or a bridge to
 *       another RPC library); the reply's DDP-eligible items go into the client's Write chunks
 *       ({@link WriteListPlacement}). A call whose RPC header does not decode is answered GARBAGE_ARGS.
 *   <li>The reply is sent inline (RDMA_MSG) if it fits the client's receive threshold, else RDMA-written into the
 *       Reply chunk and announced by RDMA_NOMSG (RFC 8166 section 3.5.4; draft section 5.2). A reply that fits
 *       neither (no Reply chunk, or one too small) is answered ERR_CHUNK.
 * </ol>
 * Every reply grants credits ({@link ConnectionSettings#grant}). Thread-safe: calls of one connection may be
 * handled concurrently.
 */
public final class RpcRdmaCallHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RpcRdmaCallHandler.class);

    private final RpcService service;
    private final RpcRdmaHeaderDecoder decoder;
    private final ConnectionSettings settings;
    private final ChunkTransfers transfers;
    private final ServerStatistics statistics;
    private final TransportProgram transportProgram;
    private final ConnectionMemory memory;
    private final String peer;
    private final Optional<InetSocketAddress> localAddress;
    private final Optional<InetSocketAddress> remoteAddress;
    /** Where refusals for memory are logged: at WARN at most once per interval, server-wide when shared. */
    private final RateLimitedLog refusalLog;
    /** The last credit value granted, for errors answered before a request could be read. */
    private volatile int lastGrant = 1;

    /**
     * @param service runs the calls (an {@link org.panamardma.oncrpc.RpcDispatcher}, for one)
     * @param decoder decodes headers under its limits
     * @param settings the connection's thresholds and credit limit
     * @param transfers the connection's RDMA Read and Write
     * @param statistics counts paths taken
     * @param transportProgram answers calls to programs the transport itself serves (the Connection Configuration
     *                         Protocol), before the service sees them; {@link TransportProgram#NONE} for none
     */
    public RpcRdmaCallHandler(RpcService service, RpcRdmaHeaderDecoder decoder, ConnectionSettings settings,
                              ChunkTransfers transfers, ServerStatistics statistics,
                              TransportProgram transportProgram) {
        this(service, decoder, settings, transfers, statistics, transportProgram, ConnectionMemory.unlimited(),
                "connection");
    }

    /**
     * @param service runs the calls
     * @param decoder decodes headers under its limits
     * @param settings the connection's thresholds and credit limit
     * @param transfers the connection's RDMA Read and Write
     * @param statistics counts paths taken
     * @param transportProgram answers calls to programs the transport itself serves
     * @param memory the budgets the connection's calls take their memory from
     * @param peer names the connection in log lines
     */
    public RpcRdmaCallHandler(RpcService service, RpcRdmaHeaderDecoder decoder, ConnectionSettings settings,
                              ChunkTransfers transfers, ServerStatistics statistics,
                              TransportProgram transportProgram, ConnectionMemory memory, String peer) {
        this(service, decoder, settings, transfers, statistics, transportProgram, memory, peer, Optional.empty(),
                Optional.empty());
    }

    /**
     * @param service runs the calls
     * @param decoder decodes headers under its limits
     * @param settings the connection's thresholds and credit limit
     * @param transfers the connection's RDMA Read and Write
     * @param statistics counts paths taken
     * @param transportProgram answers calls to programs the transport itself serves
     * @param memory the budgets the connection's calls take their memory from
     * @param peer names the connection in log lines
     * @param localAddress the connection's local address, handed to the service with each call
     * @param remoteAddress the client's address, handed to the service with each call
     */
    public RpcRdmaCallHandler(RpcService service, RpcRdmaHeaderDecoder decoder, ConnectionSettings settings,
                              ChunkTransfers transfers, ServerStatistics statistics,
                              TransportProgram transportProgram, ConnectionMemory memory, String peer,
                              Optional<InetSocketAddress> localAddress, Optional<InetSocketAddress> remoteAddress) {
        this(service, decoder, settings, transfers, statistics, transportProgram, memory, peer, localAddress,
                remoteAddress, new RateLimitedLog(RpcRdmaCallHandler.class, Duration.ofSeconds(10)));
    }

    /**
     * @param service runs the calls
     * @param decoder decodes headers under its limits
     * @param settings the connection's thresholds and credit limit
     * @param transfers the connection's RDMA Read and Write
     * @param statistics counts paths taken
     * @param transportProgram answers calls to programs the transport itself serves
     * @param memory the budgets the connection's calls take their memory from
     * @param peer names the connection in log lines
     * @param localAddress the connection's local address, handed to the service with each call
     * @param remoteAddress the client's address, handed to the service with each call
     * @param refusalLog where calls refused for memory are logged (a server shares one among its connections, so
     *                   that clients cannot flood the log)
     */
    public RpcRdmaCallHandler(RpcService service, RpcRdmaHeaderDecoder decoder, ConnectionSettings settings,
                              ChunkTransfers transfers, ServerStatistics statistics,
                              TransportProgram transportProgram, ConnectionMemory memory, String peer,
                              Optional<InetSocketAddress> localAddress, Optional<InetSocketAddress> remoteAddress,
                              RateLimitedLog refusalLog) {
        this.refusalLog = Objects.requireNonNull(refusalLog, "refusalLog");
        this.memory = Objects.requireNonNull(memory, "memory");
        this.peer = Objects.requireNonNull(peer, "peer");
        this.localAddress = Objects.requireNonNull(localAddress, "localAddress");
        this.remoteAddress = Objects.requireNonNull(remoteAddress, "remoteAddress");
        this.service = Objects.requireNonNull(service, "service");
        this.decoder = Objects.requireNonNull(decoder, "decoder");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.transfers = Objects.requireNonNull(transfers, "transfers");
        this.statistics = Objects.requireNonNull(statistics, "statistics");
        this.transportProgram = Objects.requireNonNull(transportProgram, "transportProgram");
    }

    /** @return the connection's settings */
    public ConnectionSettings settings() {
        return settings;
    }

    /**
     * What to send back for one message.
     *
     * @param path how it was answered
     * @param sendLength the bytes of the Send buffer to send; 0 for {@link ReplyPath#DROPPED}
     * @param xid the transport header's XID, if it could be read
     */
    public record Outcome(ReplyPath path, int sendLength, int xid) {
    }

    /**
     * Handles one received message.
     *
     * @param received the Send's payload
     * @param sendBuffer where to encode the answer: at least {@link ConnectionSettings#sendInline()} bytes
     * @return what to send
     * @throws IOException if an RDMA Read or Write failed: the connection is lost
     */
    public Outcome handle(MemorySegment received, MemorySegment sendBuffer) throws IOException {
        MemorySegment out = sendBuffer.asSlice(0, Math.min(sendBuffer.byteSize(), settings.sendInline()));
        DecodedHeader decoded;
        try {
            decoded = decoder.decode(received);
        } catch (RpcRdmaHeaderException e) {
            LOG.debug("refused header: {}", e.getMessage());
            Optional<RdmaError> error = e.responderReply(lastGrant);
            return error.map(err -> send(err, out)).orElseGet(() -> dropped(e.xid().orElse(0)));
        }
        RpcRdmaHeader header = decoded.header();
        return switch (header) {
            case RdmaMsg msg -> call(msg, decoded.rpcMessage(received), out);
            case RdmaNoMsg noMsg -> call(noMsg, MemorySegment.NULL, out);
            case org.panamardma.rpcrdma.RdmaMsgp msgp -> send(new RdmaError.ChunkError(msgp.xid(),
                    settings.grant(msgp.credits())), out);
            case org.panamardma.rpcrdma.RdmaDone done -> dropped(done.xid());
            case RdmaError error -> dropped(error.xid());
        };
    }

    private Outcome call(RpcRdmaHeader.WithChunks header, MemorySegment inline, MemorySegment out)
            throws IOException {
        int grant = settings.grant(header.credits());
        lastGrant = grant;
        int xid = header.xid();
        try (CallMemory callMemory = new CallMemory(memory)) {
            try {
                // the results may point into memory the procedure holds until its data has been RDMA-written
                // (ReplyResources): released when this call's chunks have moved, before the reply's Send
                return ReplyResources.during(() -> call(header, inline, out, grant, callMemory));
            } catch (MemoryRefused refused) {
                return refusedForMemory(xid, grant, refused, out);
            }
        }
    }

    private Outcome call(RpcRdmaHeader.WithChunks header, MemorySegment inline, MemorySegment out, int grant,
                         CallMemory callMemory) throws IOException {
        int xid = header.xid();
        ChunkTransfers pinned = callMemory.pinning(transfers);
        CallAssembler.Assembled assembled;
        try {
            ReadListPositions.validate(header, inline.byteSize());
            assembled = CallAssembler.assemble(header, inline, pinned, settings.maxCallSize(), callMemory);
        } catch (RpcRdmaHeaderException | ChunkFault e) {
            LOG.debug("xid {}: {}", Integer.toHexString(xid), e.getMessage());
            return send(new RdmaError.ChunkError(xid, grant), out);
        }
        statistics.call(assembled.path());
        ChunkLists chunks = header.chunks();
        Optional<WriteChunk> replyChunk = chunks.replyChunk();
        // The reply is encoded straight into the Send buffer, after room for the RDMA_MSG header (whose size the
        // Write list's shape fixes: the returned list has the offered chunks and segment counts), and grows into
        // heap memory from the call's budget only if it does not fit there: as far as the reply really needs,
        // never further than the client can take (its Reply chunk) nor than this server's largest reply. What a
        // client declares is a limit, never an allocation.
        RdmaMsg shape = new RdmaMsg(xid, grant, new ChunkLists(List.of(), chunks.writeList(), Optional.empty()));
        long headerSize = RpcRdmaHeaderEncoder.size(shape);
        long inlineRoom = Math.max(0, out.byteSize() - headerSize);
        MemorySegment first = inlineRoom > 0 ? out.asSlice(headerSize, inlineRoom) : MemorySegment.NULL;
        long limit = Math.max(inlineRoom, replyChunk.map(c -> Math.min((long) c.length(),
                settings.maxReplySize())).orElse(0L));
        ReplyGrowth growth = new ReplyGrowth(first, limit, callMemory);
        WriteListPlacement placement = new WriteListPlacement(chunks.writeList());
        XdrEncoder encoder = new XdrEncoder(first, 0, placement, growth);
        try {
            run(xid, assembled.call(), encoder);
        } catch (XdrException tooLarge) {
            // not even an error reply fitted: only when the client left no room for one (a header filling the
            // whole inline threshold and no Reply chunk)
            return send(new RdmaError.ChunkError(xid, grant), out);
        }
        if (callMemory.refused() != null) {
            // the service answered SYSTEM_ERR in place of results it could not encode for want of memory
            throw callMemory.refused();
        }
        if (placement.rewound() && growth.refusedAtLimit() && limit < settings.maxReplySize()) {
            // The results did not fit where the client can take them (inline or its Reply chunk), and the
            // service put SYSTEM_ERR in their place: the client's chunks were too small, a chunk error
            // (RFC 8166 section 4.5.2), not a failure of the procedure.
            LOG.debug("xid {}: reply larger than {} bytes, the most inline or in the Reply chunk",
                    Integer.toHexString(xid), limit);
            return send(new RdmaError.ChunkError(xid, grant), out);
        }
        if (placement.fault() != null) {
            LOG.debug("xid {}: {}", Integer.toHexString(xid), placement.fault());
            return send(new RdmaError.ChunkError(xid, grant), out);
        }
        for (WriteListPlacement.Placed p : placement.placed()) {
            pinned.write(p.data(), chunks.writeList().get(p.chunk()).segments());
        }
        List<WriteChunk> writeList = placement.returned();
        MemorySegment reduced = encoder.written(0);
        ReplyPath dataPath = placement.placed().isEmpty() ? ReplyPath.INLINE : ReplyPath.WRITE_LIST;
        if (reduced.byteSize() <= inlineRoom) {
            RdmaMsg inlineHeader = new RdmaMsg(xid, grant, new ChunkLists(List.of(), writeList, Optional.empty()));
            XdrEncoder send = new XdrEncoder(out);
            RpcRdmaHeaderEncoder.encode(inlineHeader, send);
            if (send.position() != headerSize) {
                throw new IllegalStateException("RDMA_MSG header of " + send.position() + " bytes, " + headerSize
                        + " reserved");
            }
            if (encoder.segment() != first) {
                // grew, then was rewound to an error reply that fits inline after all
                MemorySegment.copy(reduced, 0, out, headerSize, reduced.byteSize());
            }
            return sent(dataPath, (int) (headerSize + reduced.byteSize()), xid);
        }
        if (replyChunk.isEmpty() || reduced.byteSize() > replyChunk.get().length()) {
            // RFC 8166 section 3.5.4: a reply too long for inline goes in the Reply chunk; without room there the
            // responder cannot deliver it and reports the chunk error.
            LOG.debug("xid {}: reply of {} bytes, Reply chunk {}", Integer.toHexString(xid), reduced.byteSize(),
                    replyChunk.map(WriteChunk::length).map(String::valueOf).orElse("absent"));
            return send(new RdmaError.ChunkError(xid, grant), out);
        }
        pinned.write(reduced, replyChunk.get().segments());
        RdmaNoMsg noMsg = new RdmaNoMsg(xid, grant, new ChunkLists(List.of(), writeList,
                Optional.of(WriteListPlacement.filled(replyChunk.get(), reduced.byteSize()))));
        XdrEncoder send = new XdrEncoder(out);
        try {
            RpcRdmaHeaderEncoder.encode(noMsg, send);
        } catch (XdrException tooManySegments) {
            return send(new RdmaError.ChunkError(xid, grant), out);
        }
        return sent(ReplyPath.REPLY_CHUNK, (int) send.position(), xid);
    }

    /**
     * A call that could not have the memory it needs within the wait: answered ERR_CHUNK (the transport could not
     * process the chunks; RFC 8166 section 4.5.2), so the client gets its credit back and the connection goes on.
     * Counted ({@link ServerStatistics#memoryRefusals()}); logged at WARN at most once per interval (naming the peer
     * and the budget), the rest at DEBUG.
     */
    private Outcome refusedForMemory(int xid, int grant, MemoryRefused refused, MemorySegment out) {
        statistics.memoryRefusal();
        refusalLog.warn(() -> peer + ": call xid " + Integer.toHexString(xid) + " refused: needed " + refused.bytes()
                + " bytes, " + refused.budget().name() + " allows " + refused.budget().limit() + " ("
                + refused.budget().used() + " in use now); " + statistics.memoryRefusals() + " refused so far");
        return send(new RdmaError.ChunkError(xid, grant), out);
    }

    /**
     * Grows a reply's encoding space: from the Send buffer into heap memory taken from the call's budget, each
     * time to twice the size (or what the item needs), never beyond {@code limit}. A refusal at the limit means
     * the reply is larger than the client can take; a refusal for memory is recorded by the {@link CallMemory}.
     */
    private static final class ReplyGrowth implements XdrEncoder.Growth {
        private final long limit;
        private final CallMemory memory;
        private final MemorySegment first;
        private boolean refusedAtLimit;

        ReplyGrowth(MemorySegment first, long limit, CallMemory memory) {
            this.first = first;
            this.limit = limit;
            this.memory = memory;
        }

        @Override
        public MemorySegment grow(MemorySegment current, long used, long needed) {
            if (needed > limit) {
                refusedAtLimit = true;
                return null;
            }
            long size = Math.min(limit, Math.max(needed, Math.max(8192, current.byteSize() * 2)));
            MemorySegment larger;
            try {
                larger = memory.heap(size);
            } catch (MemoryRefused refused) {
                return null; // recorded in the CallMemory; the call is answered ERR_CHUNK
            }
            MemorySegment.copy(current, 0, larger, 0, used);
            if (current != first && current.byteSize() > 0) {
                memory.freeHeap(current);
            }
            return larger;
        }

        boolean refusedAtLimit() {
            return refusedAtLimit;
        }
    }

    /** Decodes the RPC call header and runs it (or the transport's own program) into {@code out}. */
    private void run(int transportXid, MemorySegment call, XdrEncoder out) {
        XdrDecoder in = new XdrDecoder(call);
        RpcMessage message;
        try {
            message = RpcMessageCodec.decode(in);
        } catch (XdrException garbage) {
            message = null;
        }
        if (!(message instanceof RpcCall rpcCall)) {
            // Not a call we can read: still answer, under the transport XID, so the client's credit comes back.
            RpcMessageCodec.encode(AcceptedReply.failure(transportXid, OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS), out);
            return;
        }
        if (!transportProgram.dispatch(rpcCall, in, out, settings)) {
            service.serve(new RpcService.Incoming(rpcCall, call, in, localAddress, remoteAddress), out);
        }
    }

    private Outcome send(RdmaError error, MemorySegment out) {
        XdrEncoder send = new XdrEncoder(out);
        RpcRdmaHeaderEncoder.encode(error, send);
        return sent(error instanceof RdmaError.VersionMismatch ? ReplyPath.ERR_VERS : ReplyPath.ERR_CHUNK,
                (int) send.position(), error.xid());
    }

    private Outcome sent(ReplyPath path, int length, int xid) {
        statistics.reply(path);
        return new Outcome(path, length, xid);
    }

    private Outcome dropped(int xid) {
        statistics.reply(ReplyPath.DROPPED);
        return new Outcome(ReplyPath.DROPPED, 0, xid);
    }
}
