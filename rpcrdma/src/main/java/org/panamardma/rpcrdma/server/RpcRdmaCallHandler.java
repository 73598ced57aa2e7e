package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.CallInput;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.ReplyResources;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.oncrpc.limits.RateLimitedLog;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadListPositions;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of RPC-over-RDMA version 1 for one connection, without the device: takes one received message,
 * answers it into a Send buffer, moving chunk data through {@link ChunkTransfers}. This class is the receive side
 * (svcrdma's svc_rdma_recvfrom: decode, assemble, Read chunks); {@link ReplyDraft} is the reply side
 * (svc_rdma_sendto: placement, Write list, Reply chunk, header). On a device the reply's RDMA Writes are staged
 * ({@link CallTransfers}) and returned with the {@link Outcome}, to be posted chained before its Send.
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
 *       ({@link WriteListPlacement}, {@link ReplyDraft}). A call whose RPC header does not decode is answered
 *       GARBAGE_ARGS.
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
    private final Answers answers;
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
     * A handler of one connection's messages.
     *
     * @param service runs the calls (an {@link org.panamardma.oncrpc.RpcDispatcher}, for one)
     * @param decoder decodes headers under its limits
     * @param settings the connection's thresholds and credit limit
     * @param transfers the connection's RDMA Read and Write
     * @param statistics counts paths taken
     * @param transportProgram answers calls to programs the transport itself serves (the Connection Configuration
     *                         Protocol), before the service sees them; {@link TransportProgram#NONE} for none
     */
    public RpcRdmaCallHandler(
            RpcService service,
            RpcRdmaHeaderDecoder decoder,
            ConnectionSettings settings,
            ChunkTransfers transfers,
            ServerStatistics statistics,
            TransportProgram transportProgram) {
        this(
                service,
                decoder,
                settings,
                transfers,
                statistics,
                transportProgram,
                ConnectionMemory.unlimited(),
                "connection");
    }

    /**
     * A handler of one connection's messages.
     *
     * @param service runs the calls
     * @param decoder decodes headers under its limits
     * @param settings the connection's thresholds and credit limit
     * @param transfers the connection's RDMA Read and Write
     * @param statistics counts paths taken
     * @param transportProgram answers calls to programs the transport itself serves
     * @param memory the budgets the connection's calls take their memory from
     * @param peer names the connection in log lines
     */
    public RpcRdmaCallHandler(
            RpcService service,
            RpcRdmaHeaderDecoder decoder,
            ConnectionSettings settings,
            ChunkTransfers transfers,
            ServerStatistics statistics,
            TransportProgram transportProgram,
            ConnectionMemory memory,
            String peer) {
        this(
                service,
                decoder,
                settings,
                transfers,
                statistics,
                transportProgram,
                memory,
                peer,
                Optional.empty(),
                Optional.empty());
    }

    /**
     * A handler of one connection's messages.
     *
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
    public RpcRdmaCallHandler(
            RpcService service,
            RpcRdmaHeaderDecoder decoder,
            ConnectionSettings settings,
            ChunkTransfers transfers,
            ServerStatistics statistics,
            TransportProgram transportProgram,
            ConnectionMemory memory,
            String peer,
            Optional<InetSocketAddress> localAddress,
            Optional<InetSocketAddress> remoteAddress) {
        this(
                service,
                decoder,
                settings,
                transfers,
                statistics,
                transportProgram,
                memory,
                peer,
                localAddress,
                remoteAddress,
                new RateLimitedLog(RpcRdmaCallHandler.class, Duration.ofSeconds(10)));
    }

    /**
     * A handler of one connection's messages.
     *
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
    public RpcRdmaCallHandler(
            RpcService service,
            RpcRdmaHeaderDecoder decoder,
            ConnectionSettings settings,
            ChunkTransfers transfers,
            ServerStatistics statistics,
            TransportProgram transportProgram,
            ConnectionMemory memory,
            String peer,
            Optional<InetSocketAddress> localAddress,
            Optional<InetSocketAddress> remoteAddress,
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
        this.answers = new Answers(statistics);
        this.transportProgram = Objects.requireNonNull(transportProgram, "transportProgram");
    }

    /** {@return the connection's settings} */
    public ConnectionSettings settings() {
        return settings;
    }

    /**
     * What to send back for one message: how it was answered, the bytes of the Send buffer to send (0 for
     * {@link ReplyPath#DROPPED}) and the transport header's XID (if it could be read). On a device it also carries
     * the reply's staged RDMA Writes, posted before the Send.
     */
    public static final class Outcome {
        private final ReplyPath path;
        private final int sendLength;
        private final int xid;
        private final StagedWrites writes;

        Outcome(ReplyPath path, int sendLength, int xid) {
            this(path, sendLength, xid, StagedWrites.NONE);
        }

        private Outcome(ReplyPath path, int sendLength, int xid, StagedWrites writes) {
            this.path = path;
            this.sendLength = sendLength;
            this.xid = xid;
            this.writes = writes;
        }

        /** {@return how it was answered} */
        public ReplyPath path() {
            return path;
        }

        /** {@return the bytes of the Send buffer to send; 0 for {@link ReplyPath#DROPPED}} */
        public int sendLength() {
            return sendLength;
        }

        /** {@return the transport header's XID, if it could be read} */
        public int xid() {
            return xid;
        }

        /** {@return the reply's RDMA Writes, to be posted before its Send (none off a device)} */
        StagedWrites writes() {
            return writes;
        }

        Outcome withWrites(StagedWrites staged) {
            return staged.isEmpty() ? this : new Outcome(path, sendLength, xid, staged);
        }

        /** Equal as the record it was: the same path, Send length, XID and staged Writes (tests compare answers). */
        @Override
        public boolean equals(Object o) {
            return o instanceof Outcome other
                    && path == other.path
                    && sendLength == other.sendLength
                    && xid == other.xid
                    && java.util.Objects.equals(writes, other.writes);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(path, sendLength, xid, writes);
        }

        @Override
        public String toString() {
            return "Outcome[path=" + path + ", sendLength=" + sendLength + ", xid=" + xid
                    + (writes.isEmpty() ? "" : ", writes=" + writes.writes().size()) + "]";
        }
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
            return error.map(err -> send(err, out))
                    .orElseGet(() -> dropped(e.xid().orElse(0)));
        }
        RpcRdmaHeader header = decoded.header();
        return switch (header) {
            case RdmaMsg msg -> call(msg, decoded.rpcMessage(received), out);
            case RdmaNoMsg noMsg -> call(noMsg, MemorySegment.NULL, out);
            case org.panamardma.rpcrdma.RdmaMsgp msgp ->
                send(new RdmaError.ChunkError(msgp.xid(), settings.grant(msgp.credits())), out);
            case org.panamardma.rpcrdma.RdmaDone done -> dropped(done.xid());
            case RdmaError error -> dropped(error.xid());
        };
    }

    private Outcome call(RpcRdmaHeader.WithChunks header, MemorySegment inline, MemorySegment out) throws IOException {
        int grant = settings.grant(header.credits());
        lastGrant = grant;
        int xid = header.xid();
        try (CallMemory callMemory = new CallMemory(memory);
                CallTransfers staging =
                        transfers instanceof VerbsChunkTransfers device ? device.forCall(callMemory) : null) {
            // a device's transfers stage the reply's writes (posted with its Send); others move data at once
            ChunkTransfers callTransfers = staging != null ? staging : callMemory.pinning(transfers);
            try {
                // the results may point into memory the procedure holds until its data has been RDMA-written
                // (ReplyResources): released when this call's chunks are staged (copied into registered memory)
                Outcome outcome =
                        ReplyResources.during(() -> call(header, inline, out, grant, callMemory, callTransfers));
                return staging == null ? outcome : outcome.withWrites(staging.handOver(outcome.path()));
            } catch (MemoryRefused refused) {
                return refusedForMemory(xid, grant, refused, out);
            }
        }
    }

    /**
     * The receive side (svc_rdma_recvfrom): the call assembled from its inline part and Read chunks, run by the
     * service into the reply side's {@link ReplyDraft}, which completes the reply.
     */
    private Outcome call(
            RpcRdmaHeader.WithChunks header,
            MemorySegment inline,
            MemorySegment out,
            int grant,
            CallMemory callMemory,
            ChunkTransfers transfers)
            throws IOException {
        int xid = header.xid();
        CallAssembler.Assembled assembled;
        try {
            ReadListPositions.validate(header, inline.byteSize());
            CallAssembler.Room room = transfers instanceof CallTransfers device
                    ? bytes -> device.assembly(bytes, replyByRdmaWrite(header.chunks()))
                    : callMemory::heap;
            assembled = CallAssembler.assemble(header, inline, transfers, settings.maxCallSize(), callMemory, room);
        } catch (RpcRdmaHeaderException | ChunkFault e) {
            LOG.debug("xid {}: {}", Integer.toHexString(xid), e.getMessage());
            return answers.chunkError(xid, grant, out);
        }
        statistics.call(assembled.path());
        ReplyDraft reply =
                new ReplyDraft(xid, grant, header.chunks(), out, settings.maxReplySize(), callMemory, answers);
        try {
            CallInput input = transfers instanceof CallTransfers device ? device.input() : null;
            if (input == null) {
                run(xid, assembled.call(), reply.encoder());
            } else {
                // the call lies in the connection's pool: its procedures may keep it past the call (CallInput)
                input.during(() -> {
                    run(xid, assembled.call(), reply.encoder());
                    return null;
                });
            }
        } catch (XdrException tooLarge) {
            // not even an error reply fitted: only when the client left no room for one (a header filling the
            // whole inline threshold and no Reply chunk)
            return reply.tooLarge();
        }
        if (callMemory.refused() != null) {
            // the service answered SYSTEM_ERR in place of results it could not encode for want of memory
            throw callMemory.refused();
        }
        return reply.complete(transfers);
    }

    /** The most a reply may RDMA-Write: the client's Write list and Reply chunk, at most the largest reply. */
    private long replyByRdmaWrite(ChunkLists chunks) {
        long bytes =
                chunks.replyChunk().isPresent() ? capacity(chunks.replyChunk().get()) : 0;
        for (WriteChunk chunk : chunks.writeList()) {
            bytes += capacity(chunk);
        }
        return Math.min(bytes, settings.maxReplySize());
    }

    /** {@link WriteChunk#length()} as a long: no sum of a peer's segments can overflow it. */
    private static long capacity(WriteChunk chunk) {
        long bytes = 0;
        for (RdmaSegment s : chunk.segments()) {
            bytes += s.length();
        }
        return bytes;
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
                + " bytes, " + refused.budget().name() + " allows "
                + refused.budget().limit() + " ("
                + refused.budget().used() + " in use now); " + statistics.memoryRefusals() + " refused so far");
        return answers.chunkError(xid, grant, out);
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
        return answers.error(error, out);
    }

    private Outcome dropped(int xid) {
        return answers.dropped(xid);
    }
}
