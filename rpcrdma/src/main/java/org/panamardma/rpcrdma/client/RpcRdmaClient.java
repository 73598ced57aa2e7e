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
 * by XID. Every chunk is one contiguous segment (siw allows one SGE per RDMA Read, max_sge_rd 1).
 *
 * <p><b>What the server may touch</b> ({@link ChunkExposure}, {@link ChunkMemory}): a call's own segments, each
 * with one right (RDMA Read of a Read chunk, RDMA Write of a Write or Reply chunk), under a key made for the call,
 * from when the call is sent until its reply, error or timeout; RFC 8166 section 3.4.3 allows no more. Before a
 * call's future completes, the keys are revoked (memory windows invalidated with {@code IBV_WR_LOCAL_INV}, or
 * per-call registrations deregistered), so a caller may free its memory as soon as it has the result, and an access
 * the server makes later, or beyond a segment, fails with a remote access error at the server (which ends the
 * connection: pending calls then fail with {@link RpcRdmaException.ConnectionLost}). The reply is read from the
 * Reply chunk and copied out of bounce buffers only after the revocation, when the server can no longer change it.
 * Memory leased from {@link #buffers()} is exposed in place, without a copy; other native memory of the caller in
 * place too; heap memory, Reply chunks and the whole call of a Long Call use buffers of the pool (copies for heap
 * data, READ data copied back). With memory windows a call makes no {@code ibv_reg_mr} in steady state: pool buffers
 * and the caller's segments are registered once, without remote rights, the caller's through a cache tied to their
 * arena ({@link RegistrationCache}; {@link #forgetRegistrations} drops an arena's entries at once); with per-call
 * registration each chunk costs an {@code ibv_reg_mr} and an {@code ibv_dereg_mr}. {@link #registrations()} counts
 * them all. Options {@link RpcRdmaClientOptions#bufferPoolBytes()} and
 * {@link RpcRdmaClientOptions#registrationCacheBytes()} bound what the client holds.
 *
 * <p><b>Replies.</b> RDMA_MSG (the reply inline), RDMA_NOMSG (the reply in our Reply chunk), RDMA_ERROR
 * ({@link RpcRdmaException.VersionError}, {@link RpcRdmaException.ChunkError}); a reply whose chunks do not match
 * the call's is {@link RpcRdmaException.BadReply}. A lost connection fails every pending and queued call with
 * {@link RpcRdmaException.ConnectionLost}, after every window is deallocated. A timed-out call fails with
 * {@link RpcRdmaException.Timeout} once its keys are revoked; if a memory window's invalidation does not complete
 * within {@link RpcRdmaClientOptions#connectTimeout()} (the send queue is stuck behind the server), the client ends
 * the connection instead. A late inline reply is dropped ({@link #droppedReplies()}). A timed-out call that was sent
 * keeps its credit until its late reply comes (the server still counts it), so a server that never answers shrinks
 * the window.
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
    /** Set when the client ends the connection itself (a revocation that did not complete): the calls' error. */
    private final AtomicBoolean aborting = new AtomicBoolean();
    private final String name;
    private volatile RpcRdmaException failure;

    private RpcRdmaClient(RdmaConnection connection, RpcRdmaClientOptions options, ConnectPrivateData peers,
                          ChunkExposure exposure) throws RdmaException {
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
                exposure == ChunkExposure.MEMORY_WINDOWS ? new MemoryWindows(name, WindowBinder.of(connection)) : null,
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
        // Sends, and with memory windows a bind before and an invalidation after each chunk of a call: the
        // connection's permits hold requests beyond the depth back
        ConnectionOptions connectionOptions = new ConnectionOptions(4 * options.maxRequests(),
                options.maxRequests() + SPARE_RECEIVES, options.receiveBufferSize(), parameters,
                options.connectTimeout(), RECEIVE_BATCH, Math.min(SEND_SIGNAL_INTERVAL, options.maxRequests()),
                options.busyPoll());
        RdmaConnection connection = RdmaClient.connect(server, connectionOptions);
        RpcRdmaClient made = null;
        try {
            ConnectPrivateData peers = ConnectPrivateData.decode(connection.peerPrivateData());
            ChunkExposure exposure = exposure(options.exposure(), connection);
            RpcRdmaClient client = new RpcRdmaClient(connection, options, peers, exposure);
            made = client;
            Negotiated n = client.negotiatedAtConnect;
            LOG.atInfo().log(() -> client.name + " on " + connection.deviceName()
                    + ": RFC 8797 private data " + (peers.present() ? "from the server: send " + peers.sendSize()
                    + ", receive " + peers.receiveSize() + ", remote invalidation " + peers.remoteInvalidation()
                    : "absent (peer not RFC 8797-aware): defaults 1024/1024")
                    + "; ours: send " + n.ours().sendSize() + ", receive " + n.ours().receiveSize()
                    + "; inline thresholds: send " + n.sendThreshold() + ", receive " + n.receiveThreshold()
                    + "; credits requested " + options.maxRequests() + "; chunks exposed by "
                    + (exposure == ChunkExposure.MEMORY_WINDOWS ? "memory windows" : "registration per call")
                    + (options.exposure() == ChunkExposure.AUTO ? " (auto)" : ""));
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

    /**
     * What {@code wanted} means on {@code connection}'s device: {@link ChunkExposure#AUTO} takes memory windows where
     * the queue pair can bind them and the device has no known window defect.
     *
     * @throws UnsupportedOperationException if windows are wanted and the queue pair cannot bind them
     */
    static ChunkExposure exposure(ChunkExposure wanted, RdmaConnection connection) {
        boolean windows = connection.queuePair().supportsMemoryWindows();
        return switch (wanted) {
            case AUTO -> windows && connection.protectionDomain().context().attributes().memoryWindowDefect()
                    .isEmpty() ? ChunkExposure.MEMORY_WINDOWS : ChunkExposure.PER_CALL_REGISTRATION;
            case MEMORY_WINDOWS -> {
                if (!windows) {
                    throw new UnsupportedOperationException("ChunkExposure.MEMORY_WINDOWS: " + connection.deviceName()
                            + " has no type 2 memory windows (use AUTO or PER_CALL_REGISTRATION)");
                }
                yield ChunkExposure.MEMORY_WINDOWS;
            }
            case PER_CALL_REGISTRATION -> ChunkExposure.PER_CALL_REGISTRATION;
        };
    }

    /** @return how this client exposes chunks: memory windows or registrations per call */
    public ChunkExposure exposure() {
        return memory.exposure();
    }

    /** @return the memory windows bound for chunks so far (0 without windows) */
    public long windowBinds() {
        return memory.windowBinds();
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
     * @return the memory registrations ({@code ibv_reg_mr}) made for calls' chunks so far: with memory windows, the
     *     pool buffers' regions and cache misses (in steady state this stops growing); with per-call registration,
     *     one per chunk per call
     */
    public long registrations() {
        return memory.registrations();
    }

    /** @return the deregistrations ({@code ibv_dereg_mr}) of calls' chunk memory so far */
    public long deregistrations() {
        return memory.deregistrations();
    }

    /**
     * Deregisters at once the cached registrations of memory of {@code scope} (memory windows only: those are
     * registrations without any remote right, which the server cannot use): call it before closing an arena whose
     * memory was given to calls, so that no registration outlives the memory (otherwise they go at the next lookup or
     * sweep, within about a second). Registrations still used by a call go when it ends.
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
            end(call, null, t); // what was exposed before the failure is revoked first
            return future;
        }
        pending.put(xid, call);
        call.timeout = timer.schedule(() -> timedOut(call, timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
        boolean now;
        try {
            now = window.offer(call);
        } catch (IllegalStateException closedWindow) {
            if (pending.remove(xid, call)) {
                end(call, null, failureOr("client closed"));
            }
            return future;
        }
        if (now) {
            send(call);
        }
        if (failure != null && pending.remove(xid, call)) { // raced a loss that drained the window before our offer
            end(call, null, failure);
        }
        return future;
    }

    private RpcRdmaException failureOr(String what) {
        RpcRdmaException f = failure;
        return f != null ? f : new RpcRdmaException.ConnectionLost(name + ": " + what, null);
    }

    // ----------------------------------------------------------------------------------------------- sending

    private void send(Call call) {
        if (call.ended) {
            return; // timed out (or failed) while being admitted: its credit is already returned, its memory revoked
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
            end(call, null, t);
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
        call.ended = true;
        if (!window.cancelQueued(call)) {
            if (call.sent) {
                // The server still holds the call, so it still counts against the grant (RFC 8166 section
                // 3.3.1): the credit comes back with the late reply (onMessage), not now. A server that never
                // answers thus shrinks the window; calls then wait for a credit and time out saying so. The
                // server may also still try to access the call's chunks: end() revokes them first.
                timedOutHoldingCredit.put(call.xid, call);
            } else {
                sendAll(window.release()); // admitted but not yet sent: send() will skip it
            }
        }
        RpcRdmaException.Timeout error = new RpcRdmaException.Timeout(name + ": no reply to call "
                + Integer.toHexString(call.xid) + " within " + timeout + (call.sent ? "" : " (still waiting for a credit)"));
        // not on the timer thread: posting the invalidations may wait for room in the send queue, and the timer must
        // stay free to run the deadline below
        Thread.ofVirtual().name(name + "-timeout-" + Integer.toHexString(call.xid)).start(() -> end(call, null, error));
        // A window's invalidation waits behind the send queue, which a server can stall (it never posts receives,
        // and our Sends retry RNR for ever): past a deadline, ending the connection revokes every window instead.
        Duration deadline = options.connectTimeout();
        timer.schedule(() -> {
            if (!call.future.isDone()) {
                abort("the memory windows of timed-out call " + Integer.toHexString(call.xid)
                        + " were not invalidated within " + deadline);
            }
        }, deadline.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Ends the connection from the client's side (a revocation that did not complete in time): every window is
     * deallocated, and pending calls fail with {@link RpcRdmaException.ConnectionLost} naming {@code why}.
     */
    private void abort(String why) {
        if (!aborting.compareAndSet(false, true)) {
            return;
        }
        LOG.warn("{}: {}; ending the connection", name, why);
        RpcRdmaException.ConnectionLost e = new RpcRdmaException.ConnectionLost(name + ": " + why, null);
        if (failure == null) {
            failure = e;
        }
        memory.revokeAllWindows();
        Thread.ofVirtual().name(name + "-abort").start(() -> {
            connection.close(); // the receive loop then fails every call (failAll)
            failAll(e);
        });
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
        if (message.hasInvalidated()) {
            // the server's Send With Invalidate (we announce no remote invalidation, RFC 8797, but a server may send
            // it anyway): its key is free now, and must not be invalidated again by us
            memory.invalidatedByPeer(message.invalidatedRkey());
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
                sendAll(window.replyReceived(header.credits())); // the credit the timed-out call kept
            } else {
                sendAll(window.grantUpdated(header.credits()));
            }
            return;
        }
        sendAll(window.replyReceived(header.credits()));
        RpcRdmaHeader h = header;
        MemorySegment inline = header instanceof RdmaMsg && decoded != null ? decoded.rpcMessage(message) : null;
        // decoded once the chunks are revoked: the server can no longer change the Reply chunk or the bounces
        end(call, () -> ReplyDecoding.decode(name + ": call " + Integer.toHexString(call.xid), h, inline, call.plan,
                call.expectation, call.chunks.replyChunk, call.chunks.bounces, offered(call)), null);
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
                end(call, null, new RpcRdmaException.BadReply(name + ": bad reply header: " + e.getMessage(), e));
            }
        }
    }

    /** @return the chunk lists the call's transport header offered */
    private static ChunkLists offered(Call call) {
        return call.header instanceof RpcRdmaHeader.WithChunks w ? w.chunks() : ChunkLists.NONE;
    }

    /** Decodes a reply once its call's chunks are revoked. */
    @FunctionalInterface
    private interface Decoder {
        RpcRdmaReply decode() throws RpcRdmaException;
    }

    /**
     * Ends a call the caller removed from {@link #pending} (or that never got there): revokes its chunks, then
     * decodes its reply ({@code decoder}, or fails with {@code error}), lets its memory go and completes its future.
     * The revocation completes at once (registrations per call, windows already gone), or when the windows'
     * invalidation completes, on the connection's poller thread.
     */
    private void end(Call call, Decoder decoder, Throwable error) {
        call.ended = true;
        ScheduledFuture<?> t = call.timeout;
        if (t != null) {
            t.cancel(false);
        }
        call.chunks.revoke().whenComplete((v, x) -> {
            RpcRdmaReply reply = null;
            Throwable failed = error;
            if (failed == null) {
                try {
                    reply = decoder.decode();
                } catch (RpcRdmaException | RuntimeException e) {
                    failed = e;
                }
            }
            try {
                call.chunks.release();
            } catch (RuntimeException e) {
                LOG.warn(name + ": releasing the chunk memory of call " + Integer.toHexString(call.xid), e);
            }
            if (failed != null) {
                call.future.completeExceptionally(failed);
            } else {
                call.future.complete(reply);
            }
        });
    }

    private void failAll(RpcRdmaException e) {
        if (failure == null) {
            failure = e;
        }
        // every window goes first, whatever state the queue pair is in: the calls' revocations complete at once
        memory.revokeAllWindows();
        timedOutHoldingCredit.clear();
        for (Call queued : window.close()) {
            if (pending.remove(queued.xid, queued)) {
                end(queued, null, e);
            }
        }
        for (Call call : List.copyOf(pending.values())) {
            if (pending.remove(call.xid, call)) {
                end(call, null, e);
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
        memory.close();
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
        /** Set when the call ends (its chunks being revoked): it must not be sent any more. */
        volatile boolean ended;
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
