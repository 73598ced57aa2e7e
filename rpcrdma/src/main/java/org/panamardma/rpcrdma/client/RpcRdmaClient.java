package org.panamardma.rpcrdma.client;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.ConnectPrivateData;
import org.panamardma.rpcrdma.CreditWindow;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.connection.ConnectionClosedException;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.Received;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requester side of RPC-over-RDMA version 1 (RFC 8166) over one rdma_cm reliable connection, interoperable
 * with Linux knfsd (svcrdma).
 *
 * <p><b>Connection.</b> {@link #connect} resolves address and route, makes one RC queue pair with a completion queue,
 * a completion channel and one poller thread ({@link RdmaConnection}), with retry count and RNR retry count 7, and
 * sends our RFC 8797 private data; the server's, from the ESTABLISHED event, fixes the inline thresholds
 * ({@link #negotiated()}, logged at INFO through SLF4J, the logging the project uses). Receive
 * buffers ({@link RpcRdmaClientOptions#maxRequests()} plus spares) are posted before connecting and each is posted
 * again before its reply is processed, so a receive is always waiting ahead of every credit we use (Linux's peers
 * may run with RNR retry 0). Calls are encoded into a pre-registered pool of Send buffers.
 *
 * <p><b>Calls.</b> {@link #call} plans the call with {@link ChunkPlanner}, registers the chunk memory of that call
 * with the least rights needed (REMOTE_READ for Read chunks; REMOTE_WRITE and LOCAL_WRITE for Write and Reply
 * chunks) and sends it when the {@link CreditWindow} has a credit; calls beyond the server's grant queue. Replies
 * are matched by XID. Each call's registrations are deregistered when it ends: reply, RDMA_ERROR, timeout,
 * connection loss or close. Registration is plain ibv_reg_mr/ibv_dereg_mr per call (no FRWR, no remote
 * invalidation; we announce none): siw allows one SGE per RDMA Read (max_sge_rd 1) and this keeps every chunk one
 * contiguous segment. Caller memory that is on the heap is copied to a per-call native buffer (and READ data back
 * from it); native memory is registered in place, so the server reads WRITE data from and writes READ data into
 * the caller's own memory.
 *
 * <p><b>Replies.</b> RDMA_MSG (the reply inline), RDMA_NOMSG (the reply in our Reply chunk), RDMA_ERROR
 * ({@link RpcRdmaException.VersionError}, {@link RpcRdmaException.ChunkError}). A lost connection fails every
 * pending and queued call with {@link RpcRdmaException.ConnectionLost}. A timed-out call's memory is deregistered at
 * once, so a late RDMA access by the server to it fails on the rkey and ends the connection (pending calls then
 * fail with ConnectionLost) rather than touch freed memory; a late inline reply is dropped
 * ({@link #droppedReplies()}). A timed-out call that was sent keeps its credit until its late reply comes (the
 * server still counts it), so a server that never answers shrinks the window.
 *
 * <p>Thread-safe. Replies are decoded and futures completed on the connection's poller thread, where the reply's
 * receive completed (no hand-off to another thread per reply). Do not block in dependent actions: a blocking call
 * made there (say, a synchronous call on this client) holds up every reply behind it until its timeout; use the
 * {@code ...Async} forms with an executor for anything slow.
 */
public final class RpcRdmaClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcRdmaClient.class);
    private static final int SPARE_RECEIVES = 4;
    private static final java.lang.foreign.ValueLayout.OfInt BIG_ENDIAN_INT =
            java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private final RdmaConnection connection;
    private final RpcRdmaClientOptions options;
    private final Negotiated negotiatedAtConnect;
    private final ChunkPlanner planner;
    private final CreditWindow<Call> window;
    private final Map<Integer, Call> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextXid = new AtomicInteger(ThreadLocalRandom.current().nextInt());
    private final MemoryRegion sendBuffers;
    private final int sendSlotSize;
    private final ConcurrentLinkedQueue<Integer> freeSendSlots = new ConcurrentLinkedQueue<>();
    private final RpcRdmaHeaderDecoder headerDecoder = new RpcRdmaHeaderDecoder();
    private final ScheduledExecutorService timer;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong droppedReplies = new AtomicLong();
    /** XIDs of sent calls that timed out: each keeps its credit until its late reply arrives. */
    private final Set<Integer> timedOutHoldingCredit = ConcurrentHashMap.newKeySet();
    private final String name;
    private volatile RpcRdmaException failure;

    private RpcRdmaClient(RdmaConnection connection, RpcRdmaClientOptions options, ConnectPrivateData peers)
            throws RdmaException {
        this.connection = connection;
        this.options = options;
        ConnectPrivateData ours = options.privateData();
        int send = ConnectPrivateData.sendThreshold(ours, peers);
        int receive = ConnectPrivateData.receiveThreshold(ours, peers);
        this.negotiatedAtConnect = new Negotiated(ours, peers, send, receive, 1);
        this.planner = new ChunkPlanner(send, receive, options.readChunkMinimum(), options.writeChunkMinimum(),
                options.alwaysReplyChunk());
        this.window = new CreditWindow<>(options.maxRequests());
        this.name = "rpcrdma-client-" + connection.peerAddress().map(a -> a.getAddress().getHostAddress() + ":"
                + a.getPort()).orElse("?");
        this.sendSlotSize = send;
        int slots = 2 * options.maxRequests();
        this.sendBuffers = connection.protectionDomain().allocate((long) slots * sendSlotSize, Set.of());
        for (int i = 0; i < slots; i++) {
            freeSendSlots.add(i);
        }
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon(true)
                .name(name + "-timer").unstarted(r));
    }

    /**
     * Connects to an RPC-over-RDMA server (NFS: port 20049).
     *
     * @throws RdmaException if a connection step fails (nothing is left open)
     */
    public static RpcRdmaClient connect(InetSocketAddress server, RpcRdmaClientOptions options) throws RdmaException {
        ConnectionParameters parameters = ConnectionParameters.DEFAULTS.withRetries(7, 7)
                .withPrivateData(options.privateData().encode());
        ConnectionOptions connectionOptions = new ConnectionOptions(2 * options.maxRequests(),
                options.maxRequests() + SPARE_RECEIVES, options.receiveBufferSize(), parameters,
                options.connectTimeout());
        RdmaConnection connection = RdmaClient.connect(server, connectionOptions);
        try {
            ConnectPrivateData peers = ConnectPrivateData.decode(connection.peerPrivateData());
            RpcRdmaClient client = new RpcRdmaClient(connection, options, peers);
            Negotiated n = client.negotiatedAtConnect;
            LOG.atInfo().log(() -> client.name + " on " + connection.deviceName()
                    + ": RFC 8797 private data " + (peers.present() ? "from the server: send " + peers.sendSize()
                    + ", receive " + peers.receiveSize() + ", remote invalidation " + peers.remoteInvalidation()
                    : "absent (peer not RFC 8797-aware): defaults 1024/1024")
                    + "; ours: send " + n.ours().sendSize() + ", receive " + n.ours().receiveSize()
                    + "; inline thresholds: send " + n.sendThreshold() + ", receive " + n.receiveThreshold()
                    + "; credits requested " + options.maxRequests());
            client.receiveNext();
            return client;
        } catch (RdmaException | RuntimeException | Error e) {
            connection.close();
            throw e;
        }
    }

    /** @return the inline thresholds, both sides' private data and the current credit grant */
    public Negotiated negotiated() {
        Negotiated n = negotiatedAtConnect;
        return new Negotiated(n.ours(), n.peers(), n.sendThreshold(), n.receiveThreshold(), window.grant());
    }

    /** @return the device the connection runs on */
    public String deviceName() {
        return connection.deviceName();
    }

    /** @return the server's address */
    public Optional<InetSocketAddress> peerAddress() {
        return connection.peerAddress();
    }

    /** @return the most calls that held a credit at once on this connection */
    public int peakOutstanding() {
        return window.peakOutstanding();
    }

    /**
     * @return replies dropped because no call with their XID was pending: late replies to calls that had timed
     *     out (their memory was deregistered at the timeout, so only an inline reply can still arrive intact)
     */
    public long droppedReplies() {
        return droppedReplies.get();
    }

    /** @return calls holding a credit now, calls waiting for one */
    public int[] outstandingAndQueued() {
        return new int[] {window.outstanding(), window.queued()};
    }

    /** {@link #call(int, int, int, OpaqueAuth, XdrEncodable, ReplyExpectation, Duration)} with the default timeout. */
    public CompletableFuture<RpcRdmaReply> call(int program, int version, int procedure, OpaqueAuth credential,
                                                XdrEncodable arguments, ReplyExpectation expectation) {
        return call(program, version, procedure, credential, arguments, expectation, options.callTimeout());
    }

    /**
     * Sends one call (AUTH_NONE verifier). The arguments are encoded on the calling thread (up to three times: they
     * must be repeatable), and chunk memory is registered there too, so native memory of a confined arena may be
     * used for DDP-eligible items and placement targets as long as it outlives the call. Never throws: every
     * failure completes the future exceptionally ({@link RpcRdmaException} and subclasses; the encoder's
     * {@link org.panamardma.xdr.XdrException} for arguments that do not encode).
     */
    public CompletableFuture<RpcRdmaReply> call(int program, int version, int procedure, OpaqueAuth credential,
                                                XdrEncodable arguments, ReplyExpectation expectation,
                                                Duration timeout) {
        return call(program, version, procedure, credential, arguments, expectation, timeout, null);
    }

    /**
     * For interoperability tests only: a call whose transport header has one 32-bit word replaced after encoding
     * ({@code word} 0 is the XID, 1 the version, 2 the credits, 3 the message type), to see how a server answers a
     * header it must refuse (RFC 8166 section 4.5: ERR_VERS for another version, ERR_CHUNK for what it cannot
     * parse). Replacing the XID makes the reply unmatchable: the call then times out.
     */
    public CompletableFuture<RpcRdmaReply> callWithHeaderWord(int word, int value, int program, int version,
                                                              int procedure, OpaqueAuth credential,
                                                              XdrEncodable arguments, Duration timeout) {
        if (word < 0 || word > 3) {
            throw new IllegalArgumentException("header word " + word + " not in [0, 3]");
        }
        return call(program, version, procedure, credential, arguments, ReplyExpectation.SMALL, timeout,
                new int[] {word, value});
    }

    private CompletableFuture<RpcRdmaReply> call(int program, int version, int procedure, OpaqueAuth credential,
                                                 XdrEncodable arguments, ReplyExpectation expectation,
                                                 Duration timeout, int[] headerPatch) {
        CompletableFuture<RpcRdmaReply> future = new CompletableFuture<>();
        RpcRdmaException down = failure;
        if (down != null || closed.get()) {
            future.completeExceptionally(down != null ? down
                    : new RpcRdmaException.ConnectionLost(name + ": client closed", null));
            return future;
        }
        int xid = nextXid.incrementAndGet();
        Call call = new Call(xid, future, expectation);
        call.headerPatch = headerPatch;
        try {
            RpcCall header = RpcCall.of(xid, program, version, procedure, credential, OpaqueAuth.NONE);
            call.plan = planner.plan(header, arguments, expectation);
            call.register(this);
        } catch (Throwable t) {
            call.release();
            future.completeExceptionally(t);
            return future;
        }
        pending.put(xid, call);
        call.timeout = timer.schedule(() -> timedOut(call, timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
        boolean now;
        try {
            now = window.offer(call);
        } catch (IllegalStateException closedWindow) {
            finish(call, null, failureOr("client closed"));
            return future;
        }
        if (now) {
            send(call);
        }
        if (failure != null) { // raced a connection loss that drained the window before our offer
            finish(call, null, failure);
        }
        return future;
    }

    private RpcRdmaException failureOr(String what) {
        RpcRdmaException f = failure;
        return f != null ? f : new RpcRdmaException.ConnectionLost(name + ": " + what, null);
    }

    // ----------------------------------------------------------------------------------------------- sending

    private void send(Call call) {
        if (call.future.isDone()) {
            return; // timed out (or failed) while being admitted: its credit is already returned, its memory gone
        }
        Integer slot = freeSendSlots.poll();
        if (slot == null) { // cannot happen: twice as many slots as credits
            failAfterCredit(call, new RpcRdmaException(name + ": no free send buffer"));
            return;
        }
        long offset = (long) slot * sendSlotSize;
        int length;
        try {
            MemorySegment buffer = sendBuffers.segment().asSlice(offset, sendSlotSize);
            XdrEncoder out = new XdrEncoder(buffer);
            RpcRdmaHeaderEncoder.encode(call.header, out);
            if (call.headerPatch != null) {
                buffer.set(BIG_ENDIAN_INT, 4L * call.headerPatch[0], call.headerPatch[1]);
            }
            if (call.plan.kind() != CallPlan.Kind.POSITION_ZERO) {
                MemorySegment.copy(call.plan.message(), 0, buffer, out.position(), call.plan.message().byteSize());
            }
            length = (int) (out.position() + (call.plan.kind() != CallPlan.Kind.POSITION_ZERO
                    ? call.plan.message().byteSize() : 0));
        } catch (RuntimeException e) {
            freeSendSlots.add(slot);
            failAfterCredit(call, new RpcRdmaException(name + ": call " + call.xid + " does not fit the send buffer", e));
            return;
        }
        call.sent = true;
        connection.send(sendBuffers, offset, length).whenComplete((v, t) -> {
            freeSendSlots.add(slot);
            if (t != null) {
                failAfterCredit(call, lost("send of call " + Integer.toHexString(call.xid) + " failed", t));
            }
        });
    }

    /** Ends a call that holds a credit without a reply, returning the credit. */
    private void failAfterCredit(Call call, Throwable t) {
        if (pending.remove(call.xid, call)) {
            sendAll(window.release());
            finish(call, null, t);
        }
    }

    private void sendAll(List<Call> admitted) {
        for (Call c : admitted) {
            send(c);
        }
    }

    private void timedOut(Call call, Duration timeout) {
        if (!pending.remove(call.xid, call)) {
            return;
        }
        if (!window.cancelQueued(call)) {
            if (call.sent) {
                // The server still holds the call, so it still counts against the grant (RFC 8166 section
                // 3.3.1): the credit comes back with the late reply (onMessage), not now. A server that never
                // answers thus shrinks the window; calls then wait for a credit and time out saying so.
                timedOutHoldingCredit.add(call.xid);
            } else {
                sendAll(window.release()); // admitted but not yet sent: send() will skip it
            }
        }
        finish(call, null, new RpcRdmaException.Timeout(name + ": no reply to call " + Integer.toHexString(call.xid)
                + " within " + timeout + (call.sent ? "" : " (still waiting for a credit)")));
    }

    // --------------------------------------------------------------------------------------------- receiving

    /**
     * Takes the next reply as soon as it is there, on the connection's poller thread, which completed its receive:
     * replies are decoded and calls' futures completed there, with no hand-off to another thread (a wake-up per
     * reply). Messages already waiting are handled in this loop rather than by nesting callbacks.
     */
    private void receiveNext() {
        while (true) {
            CompletableFuture<Received> next = connection.receive();
            if (!next.isDone()) {
                next.whenComplete((message, t) -> {
                    if (onReceived(message, t)) {
                        receiveNext();
                    }
                });
                return;
            }
            Received message = null;
            Throwable t = null;
            try {
                message = next.join();
            } catch (CompletionException | CancellationException e) {
                t = e;
            }
            if (!onReceived(message, t)) {
                return;
            }
        }
    }

    /** One received message, or the connection's end; whether to go on receiving. */
    private boolean onReceived(Received message, Throwable t) {
        if (t != null) {
            failAll(lost(closed.get() ? "client closed" : "connection lost",
                    t instanceof CompletionException c && c.getCause() != null ? c.getCause() : t));
            return false;
        }
        try {
            onMessage(MemorySegment.ofArray(message.data()));
        } catch (RuntimeException e) {
            LOG.warn(name + ": reply handling failed", e);
        }
        return true;
    }

    private RpcRdmaException.ConnectionLost lost(String what, Throwable cause) {
        String detail = cause instanceof ConnectionClosedException c ? ": " + c.getMessage()
                : cause != null ? ": " + cause : "";
        return new RpcRdmaException.ConnectionLost(name + ": " + what + detail, cause);
    }

    private void onMessage(MemorySegment message) {
        RpcRdmaHeader header;
        DecodedHeader decoded = null;
        try {
            decoded = headerDecoder.decode(message);
            header = decoded.header();
        } catch (RpcRdmaHeaderException e) {
            Optional<RdmaError.VersionMismatch> errVers = ReplyDecoding.errVersEchoingOurVersion(message);
            if (errVers.isPresent()) {
                header = errVers.get();
            } else {
                badHeader(e);
                return;
            }
        }
        Call call = pending.remove(header.xid());
        if (call == null) {
            droppedReplies.incrementAndGet();
            int xid = header.xid();
            LOG.atDebug().log(() -> name + ": dropped a reply to xid "
                    + Integer.toHexString(xid) + ": no such call pending (timed out?)");
            if (timedOutHoldingCredit.remove(xid)) {
                sendAll(window.replyReceived(header.credits())); // the credit the timed-out call kept
            } else {
                sendAll(window.grantUpdated(header.credits()));
            }
            return;
        }
        sendAll(window.replyReceived(header.credits()));
        RpcRdmaReply reply;
        try {
            reply = ReplyDecoding.decode(name + ": call " + Integer.toHexString(call.xid), header,
                    header instanceof RdmaMsg && decoded != null ? decoded.rpcMessage(message) : null, call.plan,
                    call.expectation,
                    call.replyChunk, call.bounces);
        } catch (RpcRdmaException e) {
            finish(call, null, e);
            return;
        }
        finish(call, reply, null);
    }

    /**
     * A reply we cannot parse: fail its call if its XID was readable, else drop it (RFC 8166 section 4.5 has a
     * requester drop malformed replies; a retransmission is the upper layer's business).
     */
    private void badHeader(RpcRdmaHeaderException e) {
        LOG.warn(name + ": dropped a reply with a bad transport header: "
                + e.getMessage());
        if (e.xid().isPresent()) {
            Call call = pending.remove(e.xid().getAsInt());
            if (call != null) {
                sendAll(window.release());
                finish(call, null, new RpcRdmaException.BadReply(name + ": bad reply header: " + e.getMessage(), e));
            }
        }
    }

    /** Deregisters the call's memory, then completes its future. */
    private void finish(Call call, RpcRdmaReply reply, Throwable error) {
        if (call.timeout != null) {
            call.timeout.cancel(false);
        }
        call.release();
        if (error != null) {
            call.future.completeExceptionally(error);
        } else {
            call.future.complete(reply);
        }
    }

    private void failAll(RpcRdmaException e) {
        if (failure == null) {
            failure = e;
        }
        timedOutHoldingCredit.clear();
        for (Call queued : window.close()) {
            pending.remove(queued.xid, queued);
            finish(queued, null, e);
        }
        for (Call call : List.copyOf(pending.values())) {
            if (pending.remove(call.xid, call)) {
                finish(call, null, e);
            }
        }
    }

    /**
     * Closes: pending and queued calls fail with {@link RpcRdmaException.ConnectionLost} ("client closed") and
     * their memory is deregistered, then the connection is disconnected and everything freed. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        failAll(new RpcRdmaException.ConnectionLost(name + ": client closed", null));
        try {
            sendBuffers.close();
        } catch (RuntimeException e) {
            LOG.debug(name + ": closing send buffers", e);
        }
        connection.close();
        timer.shutdownNow();
    }

    @Override
    public String toString() {
        return name;
    }

    // ------------------------------------------------------------------------------------------------- a call

    /** One call: its plan, header, registrations and future. */
    private static final class Call {
        final int xid;
        final CompletableFuture<RpcRdmaReply> future;
        final ReplyExpectation expectation;
        final List<MemoryRegion> regions = new ArrayList<>();
        /** Per target index: the native buffer standing in for a heap target, or null. */
        final List<MemorySegment> bounces = new ArrayList<>();
        final Arena arena = Arena.ofShared();
        final AtomicBoolean released = new AtomicBoolean();
        CallPlan plan;
        RpcRdmaHeader header;
        MemorySegment replyChunk;
        volatile ScheduledFuture<?> timeout;
        volatile boolean sent;
        int[] headerPatch;

        Call(int xid, CompletableFuture<RpcRdmaReply> future, ReplyExpectation expectation) {
            this.xid = xid;
            this.future = future;
            this.expectation = expectation;
        }

        /** Registers the chunk memory of the plan and builds the transport header. */
        void register(RpcRdmaClient client) throws RdmaException {
            List<ReadSegment> readList = new ArrayList<>();
            switch (plan.kind()) {
                case INLINE -> {
                }
                case READ_CHUNKS -> {
                    for (CallPlan.ReadItem item : plan.readItems()) {
                        MemoryRegion mr = registerIn(client, item.data(), Set.of(Access.REMOTE_READ), true);
                        readList.add(new ReadSegment(Math.toIntExact(item.position()),
                                new RdmaSegment(mr.rkey(), (int) item.data().byteSize(), mr.address())));
                    }
                }
                case POSITION_ZERO -> {
                    MemoryRegion mr = registerIn(client, plan.message(), Set.of(Access.REMOTE_READ), true);
                    readList.add(new ReadSegment(0, new RdmaSegment(mr.rkey(), (int) plan.message().byteSize(),
                            mr.address())));
                }
            }
            List<WriteChunk> writeList = new ArrayList<>();
            List<MemorySegment> targets = expectation.placementTargets();
            for (int i = 0; i < targets.size(); i++) {
                MemorySegment target = targets.get(i);
                if (!plan.writeTargets().get(i)) {
                    bounces.add(null);
                    continue;
                }
                MemorySegment where = target.isNative() ? target : arena.allocate(target.byteSize(), 8);
                bounces.add(target.isNative() ? null : where);
                MemoryRegion mr = registerIn(client, where, Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE), false);
                writeList.add(WriteChunk.of(new RdmaSegment(mr.rkey(), Math.toIntExact(where.byteSize()),
                        mr.address())));
            }
            Optional<WriteChunk> reply = Optional.empty();
            if (plan.replyChunkLength() > 0) {
                replyChunk = arena.allocate(plan.replyChunkLength(), 8);
                MemoryRegion mr = registerIn(client, replyChunk, Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE),
                        false);
                reply = Optional.of(WriteChunk.of(new RdmaSegment(mr.rkey(), Math.toIntExact(replyChunk.byteSize()),
                        mr.address())));
            }
            ChunkLists chunks = new ChunkLists(readList, writeList, reply);
            int credits = client.options.maxRequests();
            header = plan.kind() == CallPlan.Kind.POSITION_ZERO ? new RdmaNoMsg(xid, credits, chunks)
                    : new RdmaMsg(xid, credits, chunks);
        }

        /** Registers {@code data}, copying it to native memory first if it is on the heap (and {@code copy}). */
        private MemoryRegion registerIn(RpcRdmaClient client, MemorySegment data, Set<Access> access, boolean copy)
                throws RdmaException {
            MemorySegment where = data;
            if (!data.isNative()) {
                where = arena.allocate(data.byteSize(), 8);
                if (copy) {
                    MemorySegment.copy(data, 0, where, 0, data.byteSize());
                }
            }
            MemoryRegion mr = client.connection.protectionDomain().register(where, access);
            regions.add(mr);
            return mr;
        }

        /**
         * Deregisters and frees this call's memory (once). If any registration failed to go (ibv_dereg_mr failed,
         * here or in a close of the connection's PD that closed it first), the device may still write the memory
         * it covers: the call's arena is then left open (leaked on purpose) rather than freed under the device.
         */
        void release() {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            MemoryRegion stuck = null;
            for (MemoryRegion mr : regions) {
                try {
                    mr.close();
                } catch (RuntimeException e) {
                    LOG.warn("deregistering chunk memory of call "
                            + Integer.toHexString(xid), e);
                }
                if (mr.deregistrationFailed()) {
                    stuck = mr;
                }
            }
            if (stuck != null) {
                LOG.warn("call " + Integer.toHexString(xid) + ": ibv_dereg_mr failed for "
                        + stuck + "; the call's chunk memory is deliberately leaked, not freed, since the device may "
                        + "still write it");
                return;
            }
            arena.close();
        }
    }
}
