package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.rpcrdma.ConnectPrivateData;
import org.panamardma.rpcrdma.CreditWindow;
import org.panamardma.rpcrdma.memory.CallRegistrar;
import org.panamardma.rpcrdma.memory.MemoryWindows;
import org.panamardma.rpcrdma.memory.WindowBinder;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.trusted.Callbacks;
import org.panamardma.xdr.XdrEncodable;
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
 * arena ({@code RegistrationCache}; {@link #forgetRegistrations} drops an arena's entries at once); with per-call
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

    private final RdmaConnection connection;
    private final RpcRdmaClientOptions options;
    private final Negotiated negotiatedAtConnect;
    private final ChunkPlanner planner;
    private final AtomicInteger nextXid =
            new AtomicInteger(ThreadLocalRandom.current().nextInt());
    private final ChunkMemory memory;
    private final ScheduledExecutorService timer;
    private final Calls calls;
    private final CallSender sender;
    private final ReplyReceiver receiver;
    private final String name;

    private RpcRdmaClient(
            RdmaConnection connection, RpcRdmaClientOptions options, ConnectPrivateData peers, ChunkExposure exposure)
            throws RdmaException {
        this.connection = connection;
        this.options = options;
        ConnectPrivateData ours = options.privateData();
        int send = ConnectPrivateData.sendThreshold(ours, peers);
        int receive = ConnectPrivateData.receiveThreshold(ours, peers);
        this.negotiatedAtConnect = new Negotiated(ours, peers, send, receive, 1);
        this.planner = new ChunkPlanner(
                send, receive, options.readChunkMinimum(), options.writeChunkMinimum(), options.alwaysReplyChunk());
        this.name = "rpcrdma-client-"
                + connection
                        .peerAddress()
                        .map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
                        .orElse("?");
        this.memory = new ChunkMemory(
                name,
                CallRegistrar.of(connection.protectionDomain()),
                exposure == ChunkExposure.MEMORY_WINDOWS ? new MemoryWindows(name, WindowBinder.of(connection)) : null,
                RegisteredBufferPool.DEFAULT_CLASSES,
                RegisteredBufferPool.DEFAULT_SLAB_BYTES,
                options.bufferPoolBytes(),
                options.registrationCacheBytes());
        this.timer = Calls.timer(name);
        // a window's invalidation that has not completed by then ends the connection (Calls.abort)
        this.calls = new Calls(name, connection, memory, options.maxRequests(), timer, options.connectTimeout());
        try {
            this.sender = new CallSender(name, connection, send, 2 * options.maxRequests(), calls::failAfterCredit);
        } catch (RdmaException | RuntimeException e) {
            timer.shutdownNow();
            memory.close();
            throw e;
        }
        calls.sendWith(sender);
        this.receiver = new ReplyReceiver(name, connection, calls, memory);
        // drops registrations of closed arenas that no lookup met, so none stays pinned for long; a failed sweep is
        // logged and the next one still runs (an exception would otherwise end the schedule silently)
        var _ = timer.scheduleWithFixedDelay(
                Callbacks.logging(name, () -> memory.cache.sweep(Integer.MAX_VALUE)),
                SWEEP_SECONDS,
                SWEEP_SECONDS,
                TimeUnit.SECONDS);
    }

    /**
     * Connects to an RPC-over-RDMA server (NFS: port 20049).
     *
     * @param server the server's address
     * @param options how to connect and plan calls
     * @return the connected client, its replies already being received
     * @throws RdmaException if a connection step fails (nothing is left open)
     */
    public static RpcRdmaClient connect(InetSocketAddress server, RpcRdmaClientOptions options) throws RdmaException {
        ConnectionParameters parameters = ConnectionParameters.DEFAULTS
                .withRetries(7, 7)
                .withPrivateData(options.privateData().encode());
        // Sends, and with memory windows a bind before and an invalidation after each chunk of a call: the
        // connection's permits hold requests beyond the depth back
        ConnectionOptions connectionOptions = new ConnectionOptions(
                4 * options.maxRequests(),
                options.maxRequests() + SPARE_RECEIVES,
                options.receiveBufferSize(),
                parameters,
                options.connectTimeout(),
                RECEIVE_BATCH,
                Math.min(SEND_SIGNAL_INTERVAL, options.maxRequests()),
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
                    + ": RFC 8797 private data "
                    + (peers.present()
                            ? "from the server: send " + peers.sendSize() + ", receive " + peers.receiveSize()
                                    + ", remote invalidation " + peers.remoteInvalidation()
                            : "absent (peer not RFC 8797-aware): defaults 1024/1024")
                    + "; ours: send " + n.ours().sendSize() + ", receive "
                    + n.ours().receiveSize()
                    + "; inline thresholds: send " + n.sendThreshold() + ", receive " + n.receiveThreshold()
                    + "; credits requested " + options.maxRequests() + "; chunks exposed by "
                    + (exposure == ChunkExposure.MEMORY_WINDOWS ? "memory windows" : "registration per call")
                    + (options.exposure() == ChunkExposure.AUTO ? " (auto)" : ""));
            client.receiver.receiveNext();
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
            case AUTO ->
                windows
                                && connection
                                        .protectionDomain()
                                        .context()
                                        .attributes()
                                        .memoryWindowDefect()
                                        .isEmpty()
                        ? ChunkExposure.MEMORY_WINDOWS
                        : ChunkExposure.PER_CALL_REGISTRATION;
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

    /** {@return how this client exposes chunks: memory windows or registrations per call} */
    public ChunkExposure exposure() {
        return memory.exposure();
    }

    /** {@return the memory windows bound for chunks so far (0 without windows)} */
    public long windowBinds() {
        return memory.windowBinds();
    }

    /** {@return the inline thresholds, both sides' private data and the current credit grant} */
    public Negotiated negotiated() {
        Negotiated n = negotiatedAtConnect;
        return new Negotiated(
                n.ours(),
                n.peers(),
                n.sendThreshold(),
                n.receiveThreshold(),
                calls.window().grant());
    }

    /** {@return the device the connection runs on} */
    public String deviceName() {
        return connection.deviceName();
    }

    /** {@return the server's address} */
    public Optional<InetSocketAddress> peerAddress() {
        return connection.peerAddress();
    }

    /** {@return the most calls that held a credit at once on this connection} */
    public int peakOutstanding() {
        return calls.window().peakOutstanding();
    }

    /**
     * {@return replies dropped because no call with their XID was pending: late replies to calls that had timed
     *     out (their memory was deregistered at the timeout, so only an inline reply can still arrive intact)}
     */
    public long droppedReplies() {
        return receiver.droppedReplies();
    }

    /**
     * Registered buffers to allocate DDP-eligible data and placement targets from: a call handed a segment of one
     * registers nothing for it. The pool belongs to this client's protection domain and closes with the client.
     *
     * @return the client's pool
     */
    public RegisteredBufferPool buffers() {
        return memory.buffers;
    }

    /**
     * {@return the memory registrations ({@code ibv_reg_mr}) made for calls' chunks so far: with memory windows, the
     *     pool buffers' regions and cache misses (in steady state this stops growing); with per-call registration,
     *     one per chunk per call}
     */
    public long registrations() {
        return memory.registrations();
    }

    /** {@return the deregistrations ({@code ibv_dereg_mr}) of calls' chunk memory so far} */
    public long deregistrations() {
        return memory.deregistrations();
    }

    /**
     * Deregisters at once the cached registrations of memory of {@code scope} (memory windows only: those are
     * registrations without any remote right, which the server cannot use): call it before closing an arena whose
     * memory was given to calls, so that no registration outlives the memory (otherwise they go at the next lookup or
     * sweep, within about a second). Registrations still used by a call go when it ends.
     *
     * @param scope the arena whose memory goes
     * @return how many cached registrations were dropped
     */
    public int forgetRegistrations(MemorySegment.Scope scope) {
        return memory.cache.forget(scope);
    }

    /** {@return calls holding a credit now, calls waiting for one} */
    public int[] outstandingAndQueued() {
        return new int[] {calls.window().outstanding(), calls.window().queued()};
    }

    /**
     * {@link #call(int, int, int, OpaqueAuth, XdrEncodable, ReplyExpectation, Duration)} with the default timeout.
     *
     * @param program the RPC program
     * @param version its version
     * @param procedure the procedure
     * @param credential the caller's credential (AUTH_SYS, for one)
     * @param arguments encodes the procedure's arguments; DDP-eligible items go through
     *     {@link org.panamardma.xdr.XdrEncoder#putEligibleOpaque}
     * @param expectation the reply's size bound and placement targets
     * @return the reply, or the failure
     */
    public CompletableFuture<RpcRdmaReply> call(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            ReplyExpectation expectation) {
        return call(program, version, procedure, credential, arguments, expectation, options.callTimeout());
    }

    /**
     * Sends one call (AUTH_NONE verifier). The arguments are encoded on the calling thread (up to three times: they
     * must be repeatable), and chunk memory is registered there too, so native memory of a confined arena may be
     * used for DDP-eligible items and placement targets as long as it outlives the call. Never throws: every
     * failure completes the future exceptionally ({@link RpcRdmaException} and subclasses; the encoder's
     * {@link org.panamardma.xdr.XdrException} for arguments that do not encode).
     *
     * @param program the RPC program
     * @param version its version
     * @param procedure the procedure
     * @param credential the caller's credential (AUTH_SYS, for one)
     * @param arguments encodes the procedure's arguments; DDP-eligible items go through
     *     {@link org.panamardma.xdr.XdrEncoder#putEligibleOpaque}
     * @param expectation the reply's size bound and placement targets
     * @param timeout how long to wait for the reply
     * @return the reply, or the failure
     */
    public CompletableFuture<RpcRdmaReply> call(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            ReplyExpectation expectation,
            Duration timeout) {
        return call(program, version, procedure, credential, arguments, expectation, timeout, null);
    }

    /**
     * For interoperability tests only: a call whose transport header has one 32-bit word replaced after encoding
     * ({@code word} 0 is the XID, 1 the version, 2 the credits, 3 the message type), to see how a server answers a
     * header it must refuse (RFC 8166 section 4.5: ERR_VERS for another version, ERR_CHUNK for what it cannot
     * parse). Replacing the XID makes the reply unmatchable: the call then times out.
     *
     * @param word which header word to replace
     * @param value its value
     * @param program the RPC program
     * @param version its version
     * @param procedure the procedure
     * @param credential the caller's credential
     * @param arguments encodes the procedure's arguments
     * @param timeout how long to wait for the reply
     * @return the reply, or the failure
     * @throws IllegalArgumentException if {@code word} is not in [0, 3]
     */
    public CompletableFuture<RpcRdmaReply> callWithHeaderWord(
            int word,
            int value,
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            Duration timeout) {
        if (word < 0 || word > 3) {
            throw new IllegalArgumentException("header word " + word + " not in [0, 3]");
        }
        return call(program, version, procedure, credential, arguments, ReplyExpectation.SMALL, timeout, new int[] {
            word, value
        });
    }

    private CompletableFuture<RpcRdmaReply> call(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            ReplyExpectation expectation,
            Duration timeout,
            int[] headerPatch) {
        CompletableFuture<RpcRdmaReply> future = new CompletableFuture<>();
        RpcRdmaException down = calls.failure();
        if (down != null || calls.closed()) {
            future.completeExceptionally(
                    down != null ? down : new RpcRdmaException.ConnectionLost(name + ": client closed", null));
            return future;
        }
        int xid = nextXid.incrementAndGet();
        Call call = new Call(xid, future, expectation, memory);
        call.headerPatch = headerPatch;
        try {
            RpcCall header = RpcCall.of(xid, program, version, procedure, credential, OpaqueAuth.NONE);
            call.plan = planner.plan(header, arguments, expectation);
            call.expose(options.maxRequests());
        } catch (Throwable t) {
            calls.end(call, null, t); // what was exposed before the failure is revoked first
            return future;
        }
        calls.start(call, timeout);
        return future;
    }

    /**
     * Closes: pending and queued calls fail with {@link RpcRdmaException.ConnectionLost} ("client closed") and
     * their memory is deregistered, then the connection is disconnected and everything freed. Idempotent.
     */
    @Override
    public void close() {
        if (!calls.close()) {
            return;
        }
        calls.failAll(new RpcRdmaException.ConnectionLost(name + ": client closed", null));
        try {
            sender.close();
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
}
