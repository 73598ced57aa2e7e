package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
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
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
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
 * buffers ({@link RpcRdmaClientOptions#maxRequests()} plus spares) are posted before connecting and posted again
 * in batches as replies are taken, fewer waiting than there are spares, so a receive is always waiting ahead of
 * every credit we use (Linux's peers may run with RNR retry 0). Sends are signaled every eighth and whenever the
 * send queue would fill ({@link ConnectionOptions#sendSignalInterval()}): a Send buffer comes back when its own or a
 * later completion arrives. Calls are encoded into a pre-registered pool of Send buffers.
 *
 * <p><b>Calls.</b> {@link #call} plans the call with {@link ChunkPlanner}, exposes the chunk memory of that call
 * and sends it when the {@link CreditWindow} has a credit; calls beyond the server's grant queue. Replies are matched
 * by XID. Every chunk is one contiguous registered segment (no FRWR, no remote invalidation; we announce none): siw
 * allows one SGE per RDMA Read (max_sge_rd 1).
 *
 * <p><b>Chunk memory</b> ({@link ChunkMemory}): in steady state a call makes no ibv_reg_mr/ibv_dereg_mr. Memory
 * leased from {@link #buffers()} (registered once, LOCAL_WRITE, REMOTE_READ and REMOTE_WRITE) is used as it is, so
 * DDP-eligible data and placement targets the caller allocates there cost nothing to expose. Other native memory of
 * the caller is registered in place with the least rights needed (REMOTE_READ for Read chunks; LOCAL_WRITE and
 * REMOTE_WRITE for Write chunks) through a registration cache tied to the memory's arena: an entry is reused only
 * while its arena is alive ({@link RegistrationCache}; {@link #forgetRegistrations} drops an arena's entries at
 * once). Heap memory, Reply chunks and the whole call of a Long Call use buffers of the pool (copies for heap data,
 * READ data copied back). Only when the pool is exhausted or an item is larger than its largest class does a call
 * register memory of its own, as every call did before; {@link #registrations()} counts them all. Options
 * {@link RpcRdmaClientOptions#bufferPoolBytes()} and {@link RpcRdmaClientOptions#registrationCacheBytes()} bound
 * what stays pinned; a cache of 0 bytes registers caller memory per call.
 *
 * <p><b>Replies.</b> RDMA_MSG (the reply inline), RDMA_NOMSG (the reply in our Reply chunk), RDMA_ERROR
 * ({@link RpcRdmaException.VersionError}, {@link RpcRdmaException.ChunkError}). A lost connection fails every
 * pending and queued call with {@link RpcRdmaException.ConnectionLost}. A timed-out call's caller memory is
 * deregistered at once (as soon as no other call uses the same registration), so a late RDMA access by the server
 * to it fails on the rkey and ends the connection (pending calls then fail with ConnectionLost) rather than touch
 * memory the caller freed; its pool buffers stay out of the pool until the late reply comes or the connection ends,
 * so a late access never reaches another call's memory. A late inline reply is dropped
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
    /**
     * Receive buffers beyond the credits, and how many taken buffers are posted again together: one ibv_post_recv
     * per {@value #RECEIVE_BATCH} replies (Linux xprtrdma batches its receives too, rpcrdma_post_recvs). At most
     * RECEIVE_BATCH - 1 buffers wait to be posted, fewer than the spares, so a receive is still posted for every
     * reply the server may send (each reply holds a credit until it is processed).
     */
    private static final int SPARE_RECEIVES = 8;
    private static final int RECEIVE_BATCH = 8;
    /**
     * Sends are signaled every {@value}-th (at most every maxRequests-th) and whenever the send queue would
     * otherwise fill: the others' Send buffers come back when a later signaled request completes (the send queue
     * completes in order). The buffers held that way are fewer than maxRequests, so the 2 x maxRequests Send
     * buffers still outnumber the calls in flight plus those.
     */
    private static final int SEND_SIGNAL_INTERVAL = 8;
    /** How often the registration cache is swept for memory of closed arenas. */
    private static final int SWEEP_SECONDS = 1;
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
    private final ChunkMemory memory;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong droppedReplies = new AtomicLong();
    /**
     * Sent calls that timed out, by XID: each keeps its credit and its pool buffers until its late reply arrives
     * (or the connection ends).
     */
    private final Map<Integer, Call> timedOutHoldingCredit = new ConcurrentHashMap<>();
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
        this.memory = new ChunkMemory(name, ChunkRegistrar.of(connection.protectionDomain()),
                RegisteredBufferPool.DEFAULT_CLASSES, RegisteredBufferPool.DEFAULT_SLAB_BYTES,
                options.bufferPoolBytes(), options.registrationCacheBytes());
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon(true)
                .name(name + "-timer").unstarted(r));
        // drops registrations of closed arenas that no lookup met, so none stays pinned for long
        timer.scheduleWithFixedDelay(() -> memory.cache.sweep(Integer.MAX_VALUE), SWEEP_SECONDS, SWEEP_SECONDS,
                TimeUnit.SECONDS);
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
                options.connectTimeout(), RECEIVE_BATCH, Math.min(SEND_SIGNAL_INTERVAL, options.maxRequests()),
                options.busyPoll());
        RdmaConnection connection = RdmaClient.connect(server, connectionOptions);
        RpcRdmaClient made = null;
        try {
            ConnectPrivateData peers = ConnectPrivateData.decode(connection.peerPrivateData());
            RpcRdmaClient client = new RpcRdmaClient(connection, options, peers);
            made = client;
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
            if (made != null) {
                made.close(); // its timer thread too
            } else {
                connection.close();
            }
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

    /**
     * Registered buffers to allocate DDP-eligible data and placement targets from: a call handed a segment of one
     * registers nothing for it. The pool belongs to this client's protection domain and closes with the client.
     */
    public RegisteredBufferPool buffers() {
        return memory.pool;
    }

    /**
     * @return the memory registrations ({@code ibv_reg_mr}) made for calls' chunks so far: pool slabs, cache misses,
     *     and calls that found the pool exhausted; in steady state this stops growing
     */
    public long registrations() {
        return memory.registrations();
    }

    /** @return the deregistrations ({@code ibv_dereg_mr}) of calls' chunk memory so far (pool slabs go at close) */
    public long deregistrations() {
        return memory.deregistrations();
    }

    /**
     * Deregisters at once the cached registrations of memory of {@code scope}: call it before closing an arena
     * whose memory was given to calls, so that no registration outlives the memory (otherwise they go at the next
     * lookup or sweep, within about a second). Registrations still used by a call go when it ends.
     *
     * @return how many cached registrations were dropped
     */
    public int forgetRegistrations(MemorySegment.Scope scope) {
        return memory.cache.forget(scope);
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
        Call call = new Call(xid, future, expectation, memory);
        call.headerPatch = headerPatch;
        try {
            RpcCall header = RpcCall.of(xid, program, version, procedure, credential, OpaqueAuth.NONE);
            call.plan = planner.plan(header, arguments, expectation);
            call.register(this);
        } catch (Throwable t) {
            call.chunks.release();
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
                Throwable cause = t instanceof CompletionException c && c.getCause() != null ? c.getCause() : t;
                // An unsignaled Send (sendSignalInterval) has no completion of its own: when the connection ends
                // before a later signaled one, its future fails with the connection although the Send went out
                // (the server may be working on the call). Only a completion in error is the Send's own failure.
                failAfterCredit(call, cause instanceof ConnectionClosedException
                        ? lost("connection lost", cause)
                        : lost("send of call " + Integer.toHexString(call.xid) + " failed", cause));
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
        boolean abandoned = false;
        if (!window.cancelQueued(call)) {
            if (call.sent) {
                // The server still holds the call, so it still counts against the grant (RFC 8166 section
                // 3.3.1): the credit comes back with the late reply (onMessage), not now. A server that never
                // answers thus shrinks the window; calls then wait for a credit and time out saying so. The
                // server may also still access the call's chunks: its pool buffers are held as long.
                timedOutHoldingCredit.put(call.xid, call);
                abandoned = true;
            } else {
                sendAll(window.release()); // admitted but not yet sent: send() will skip it
            }
        }
        finish(call, null, new RpcRdmaException.Timeout(name + ": no reply to call " + Integer.toHexString(call.xid)
                + " within " + timeout + (call.sent ? "" : " (still waiting for a credit)")), abandoned);
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
            Call late = timedOutHoldingCredit.remove(xid);
            if (late != null) {
                late.chunks.releaseHeld(); // the server replies only once done with the chunks (RFC 8166 3.5.2)
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
                    call.chunks.replyChunk, call.chunks.bounces);
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

    /** Lets go of the call's chunk memory, then completes its future. */
    private void finish(Call call, RpcRdmaReply reply, Throwable error) {
        finish(call, reply, error, false);
    }

    /** @param abandoned the call timed out after it was sent ({@link CallChunks#abandon()}) */
    private void finish(Call call, RpcRdmaReply reply, Throwable error, boolean abandoned) {
        if (call.timeout != null) {
            call.timeout.cancel(false);
        }
        if (abandoned) {
            call.chunks.abandon();
        } else {
            call.chunks.release();
        }
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
        if (!closed.get()) { // the connection is lost: the queue pair makes no further access
            releaseAbandoned();
        }
        for (Call queued : window.close()) {
            pending.remove(queued.xid, queued);
            finish(queued, null, e);
        }
        for (Call call : List.copyOf(pending.values())) {
            if (pending.remove(call.xid, call)) {
                finish(call, null, e);
            }
        }
        if (!closed.get()) {
            // the client cannot be used again: let the caller's memory go now rather than at close
            memory.cache.clear();
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
        timer.shutdownNow();
        connection.close();
        // only now, with the queue pair gone, may a timed-out call's pool buffers go back
        releaseAbandoned();
        memory.close();
    }

    private void releaseAbandoned() {
        for (Call c : List.copyOf(timedOutHoldingCredit.values())) {
            if (timedOutHoldingCredit.remove(c.xid, c)) {
                c.chunks.releaseHeld();
            }
        }
    }

    @Override
    public String toString() {
        return name;
    }

    // ------------------------------------------------------------------------------------------------- a call

    /** One call: its plan, header, chunk memory and future. */
    private static final class Call {
        final int xid;
        final CompletableFuture<RpcRdmaReply> future;
        final ReplyExpectation expectation;
        final CallChunks chunks;
        CallPlan plan;
        RpcRdmaHeader header;
        volatile ScheduledFuture<?> timeout;
        volatile boolean sent;
        int[] headerPatch;

        Call(int xid, CompletableFuture<RpcRdmaReply> future, ReplyExpectation expectation, ChunkMemory memory) {
            this.xid = xid;
            this.future = future;
            this.expectation = expectation;
            this.chunks = new CallChunks(memory);
        }

        /** Exposes the chunk memory of the plan and builds the transport header. */
        void register(RpcRdmaClient client) throws RdmaException {
            ChunkLists lists = chunks.build(plan, expectation);
            int credits = client.options.maxRequests();
            header = plan.kind() == CallPlan.Kind.POSITION_ZERO ? new RdmaNoMsg(xid, credits, lists)
                    : new RdmaMsg(xid, credits, lists);
        }
    }
}
