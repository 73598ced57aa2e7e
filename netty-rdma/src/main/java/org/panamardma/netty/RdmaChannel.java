package org.panamardma.netty;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.TransportType;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.StreamStartProbe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Netty channel over one RDMA reliable connection (an rdma_cm id and its queue pair): a byte stream, as a socket
 * channel is, so that any handler works on it unchanged. Use it with an event loop group of {@link RdmaIoHandler}s:
 * {@code new Bootstrap().group(group).channel(RdmaChannel.class)}; a server makes them through
 * {@link RdmaServerChannel}.
 *
 * <p><b>Stream over messages.</b> Written bytes are gathered into the channel's registered send buffers and sent as
 * {@link Frame#DATA} frames, each a SEND into one of the receive buffers the peer posted; a side sends only while it
 * holds credits for the peer's buffers ({@link CreditFlow}), so writes beyond them stay in Netty's outbound buffer
 * and {@code isWritable()} turns false at its high water mark: backpressure reaches the writer. A {@code ByteBuf} of
 * at least {@link RdmaChannelOption#LARGE_WRITE_THRESHOLD} bytes goes by RDMA WRITE instead, in transfers of at most
 * the peer's {@link RdmaChannelOption#MAX_TRANSFER}: the receiver grants a buffer of its registered pool for that
 * transfer only (a registration of that buffer alone, removed when the transfer is done), the sender WRITEs into it
 * from the written buffer itself when that came from this channel's allocator (zero-copy) or from a copy, then SENDs
 * {@link Frame#DONE}; the receiver hands that same buffer to the pipeline without copying it.
 *
 * <p><b>Reading</b> follows {@code AUTO_READ} and {@code read()}: while the pipeline does not read, received frames stay
 * in their receive buffers, which are not posted again, so the peer runs out of credits: memory per connection is
 * bounded by its buffers plus one granted transfer. {@code shutdownOutput()} sends {@link Frame#FIN} after what was
 * written (half-close; the peer sees {@code ChannelInputShutdownEvent} with {@code ALLOW_HALF_CLOSURE}, else its channel
 * closes). A peer that disconnects or vanishes closes the channel ({@code channelInactive}); a failed work request
 * or a peer breaking the protocol first fires {@code exceptionCaught} with an {@link IOException} naming it.
 */
public final class RdmaChannel extends AbstractChannel implements DuplexChannel {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaChannel.class);
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /** The stream position of a bulk transfer's buffer in the inbound queue (receive slots are non-negative). */
    private static final int LARGE_MARK = -1;
    /**
     * How many times a connect is tried that ends in CONNECT_ERROR, or on iWARP in UNREACHABLE with -ETIMEDOUT (see
     * RdmaClient.connect: a transient failure on siw; iWARP has no CM retries, only the initiator's MPA reply timer,
     * so a server slow to accept ends the attempt).
     */
    private static final int CONNECT_ATTEMPTS = 3;
    /** How long a closed channel waits for its posted SENDs to be acknowledged before it disconnects. */
    private static final long LINGER_MILLIS = 2000;

    private enum State { NEW, CONNECTING, ACTIVE, CLOSED }

    /** The reject's private data when the server could not set a connection up. */
    static final byte[] SETUP_FAILED = "netty-rdma: setup failed".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final RdmaChannelConfig config;
    private final Io io = new Io();
    /** Server side: the server's handler, whose rdma_cm event channel carries this id's events. */
    private final RdmaIoHandler eventsHandler;
    private final RdmaServerChannel server;
    private final CmEvent connectRequest;
    /** Server side: the request was accepted or rejected (rdma_cm allows one answer). */
    private boolean requestAnswered;
    private RdmaIoHandler handler;
    private State state = State.NEW;
    private CmId id;
    private ConnectionResources res;
    private ConnectPrivateData peer;
    private CreditFlow flow;
    private InetSocketAddress local;
    private InetSocketAddress remote;
    /** The largest transfer this side grants: the option, within one chunk of the pool and the pool's limit. */
    private int maxTransfer;

    // connecting (client)
    private ChannelPromise connectPromise;
    private ScheduledFuture<?> connectTimeout;
    private InetSocketAddress requestedRemote;
    private InetSocketAddress requestedLocal;
    private long connectDeadline;
    private int connectAttempts;
    private int probes;
    private long probeWaitNanos;
    private boolean probeAnswered;

    // sending
    private int[] freeSlots;
    private int freeCount;
    private int outstandingSends;
    private boolean writeBlocked;
    private boolean outputShutdown;
    private boolean finPending;
    private ChannelPromise shutdownOutputPromise;
    /** The bulk transfer being sent: its source (retained) and where its bytes are registered. */
    private ByteBuf largeSource;
    private MemoryRegion largeRegion;
    private long largeOffset;
    private int largeLength;
    private boolean awaitingCts;
    /** The send buffer set aside for the pending transfer's DONE (taken with its RTS). */
    private int largeDoneSlot = -1;
    /**
     * Per send buffer, the source of the RDMA WRITE its DONE follows, released when that DONE completes (the WRITE
     * before it on the queue pair has then completed too). Per slot, not one field: the next transfer's RTS goes out
     * right after a DONE is posted, before that DONE completes, so several may be in flight.
     */
    private ByteBuf[] sendHolds;

    // receiving
    private IntRing inbound;
    private final ArrayDeque<ByteBuf> inboundLarge = new ArrayDeque<>(2);
    private boolean readPending;
    private boolean delivering;
    private boolean inputShutdown;
    private int requestedTransfer;
    private SlabByteBuf grantTarget;
    private MemoryRegion grantRegion;
    private int grantLength;
    private boolean ctsPending;
    private ScheduledFuture<?> grantRetry;
    private long bulkTransfersReceived;

    /** A client channel (Bootstrap makes it). */
    public RdmaChannel() {
        this(null, null, null, null);
    }

    /** A server's channel for an accepted request; its id's events come through {@code eventsHandler}. */
    RdmaChannel(RdmaServerChannel server, CmId id, CmEvent request, RdmaIoHandler eventsHandler) {
        super(server);
        this.server = server;
        this.id = id;
        this.connectRequest = request;
        this.eventsHandler = eventsHandler;
        this.config = new RdmaChannelConfig(this);
    }

    @Override
    public RdmaChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public boolean isOpen() {
        return state != State.CLOSED;
    }

    @Override
    public boolean isActive() {
        return state == State.ACTIVE;
    }

    @Override
    public RdmaServerChannel parent() {
        return server;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    /** The device the connection runs on ("rxe1", "siw0"), or null before it is connected. */
    public String deviceName() {
        return res == null ? null : res.device.context.deviceName();
    }

    /** Bulk transfers this channel received by RDMA WRITE into buffers it granted (for tests and monitoring). */
    public long bulkTransfersReceived() {
        return bulkTransfersReceived;
    }

    /** The registered pool this channel's connection draws from (tests: nothing stays allocated), null if none. */
    SlabPool registeredPool() {
        ConnectionResources r = res;
        return r != null ? r.device.pool : null;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof IoEventLoop l && l.isCompatible(Io.class);
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaUnsafe();
    }

    // ----------------------------------------------------------------------------------------- registration

    @Override
    protected void doRegister(ChannelPromise promise) {
        Future<IoRegistration> f = ((IoEventLoop) eventLoop()).register(io);
        f.addListener(done -> {
            if (!done.isSuccess()) {
                promise.setFailure(done.cause());
                return;
            }
            handler = RdmaIoHandler.of((IoRegistration) done.getNow());
            if (connectRequest != null && state == State.NEW) {
                try {
                    acceptRequest();
                } catch (Throwable t) {
                    refuseRequest(t);
                    promise.setFailure(t);
                    return;
                }
            }
            promise.setSuccess();
        });
    }

    /** Server side: the server's handler hands this id's events to this channel (called on the server's loop). */
    void registerEventsOf(CmId childId) {
        eventsHandler.watchCmId(childId, io);
    }

    @Override
    protected void doDeregister() {
        if (handler != null && res != null) {
            handler.unwatchCq(res.cq);
        }
    }

    // ------------------------------------------------------------------------------------------- connecting

    private final class RdmaUnsafe extends AbstractUnsafe {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            if (connectPromise != null) {
                promise.setFailure(new ConnectionPendingException());
                return;
            }
            if (state != State.NEW || server != null) {
                promise.setFailure(new AlreadyConnectedException());
                return;
            }
            if (!(remoteAddress instanceof InetSocketAddress r) || r.isUnresolved()) {
                promise.setFailure(new IllegalArgumentException("an RDMA channel connects to a resolved "
                        + "InetSocketAddress, not " + remoteAddress));
                return;
            }
            if (localAddress != null && !(localAddress instanceof InetSocketAddress)) {
                promise.setFailure(new IllegalArgumentException("local address " + localAddress));
                return;
            }
            connectPromise = promise;
            requestedRemote = r;
            if (localAddress != null) {
                requestedLocal = (InetSocketAddress) localAddress;
            }
            int millis = config.getConnectTimeoutMillis();
            if (millis <= 0) {
                millis = 30_000; // every wait has an end
            }
            connectDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            int shown = millis;
            connectTimeout = eventLoop().schedule(() -> failConnect(new ConnectTimeoutException(
                    "connection timed out after " + shown + " ms: " + requestedRemote)), millis, TimeUnit.MILLISECONDS);
            promise.addListener((ChannelFutureListener) future -> {
                if (future.isCancelled()) {
                    close(voidPromise());
                }
            });
            state = State.CONNECTING;
            startAttempt();
        }

        void resumeWrites() {
            flush0();
        }

        void shutdownOutputNow(ChannelPromise promise) {
            shutdownOutput(promise);
        }
    }

    /** One connect attempt: a new id, address resolution; the rest follows from its events. */
    private void startAttempt() {
        connectAttempts++;
        try {
            id = handler.cmChannel().createId();
            handler.watchCmId(id, io);
            resolve();
        } catch (RdmaException | RuntimeException e) {
            failConnect(connectFailure("starting the connection", e));
        }
    }

    private void resolve() throws RdmaException {
        // attempts of at most a second: the kernel misses an ARP answer that comes while it queues the request,
        // and then waits out the whole timeout (CmConnector.RESOLVE_ATTEMPT says why)
        id.resolveAddress(requestedLocal, requestedRemote, Duration.ofMillis(Math.min(1000, leftMillis())));
    }

    private long leftMillis() {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(connectDeadline - System.nanoTime()));
    }

    private void onClientCmEvent(CmEvent e) throws RdmaException {
        switch (e.type()) {
            case ADDR_RESOLVED -> id.resolveRoute(Duration.ofMillis(leftMillis()));
            case ADDR_ERROR -> {
                if (e.status() == -Errno.ETIMEDOUT && connectDeadline - System.nanoTime() > 0) {
                    resolve();
                } else {
                    failConnect(cmFailure("address resolution", e));
                }
            }
            case ROUTE_RESOLVED -> {
                setUpResources();
                id.connect(parameters());
            }
            case ESTABLISHED -> {
                peer = ConnectPrivateData.decode(e.privateData());
                startStream();
                if (StreamStartProbe.needed(res.device.context) && StreamStartProbe.possible(e)) {
                    probeWaitNanos = StreamStartProbe.FIRST_WAIT_NANOS;
                    probe();
                } else {
                    connected();
                }
            }
            case CONNECT_ERROR -> retryOrFail(e, "a connection that could not be set up");
            case UNREACHABLE -> {
                if (e.status() == -Errno.ETIMEDOUT && res != null
                        && res.device.context.transportType() == TransportType.IWARP) {
                    retryOrFail(e, "iWARP: the server did not answer the MPA request in time");
                } else {
                    failConnect(cmFailure("connect", e));
                }
            }
            case DISCONNECTED, DEVICE_REMOVAL, TIMEWAIT_EXIT -> peerGone(e);
            default -> failConnect(cmFailure("connect", e));
        }
    }

    /** Another attempt after a transient connect failure (see CONNECT_ATTEMPTS), while attempts and time are left. */
    private void retryOrFail(CmEvent e, String why) {
        if (connectAttempts < CONNECT_ATTEMPTS && connectDeadline - System.nanoTime() > 0) {
            LOG.info("connect to {}: {} (status {}), {}; trying again, attempt {} of {}", requestedRemote,
                    e.type().cName(), e.status(), why, connectAttempts + 1, CONNECT_ATTEMPTS);
            dropAttempt();
            startAttempt();
        } else {
            failConnect(cmFailure("connect", e));
        }
    }

    private ConnectionParameters parameters() {
        return ConnectionParameters.DEFAULTS.withPrivateData(new ConnectPrivateData(config.getReceiveQueueDepth(),
                config.getBufferSize(), maxTransfer).encode());
    }

    /** Server side, on this channel's loop once registered: resources, then accept; ESTABLISHED follows. */
    private void acceptRequest() throws RdmaException {
        peer = ConnectPrivateData.decode(connectRequest.privateData());
        state = State.CONNECTING;
        setUpResources();
        // the client may SEND as soon as it sees ESTABLISHED, before this side's event: receive from now on
        startStream();
        id.accept(parameters());
        requestAnswered = true;
        int millis = config.getConnectTimeoutMillis() > 0 ? config.getConnectTimeoutMillis() : 30_000;
        connectTimeout = eventLoop().schedule(() -> {
            if (state == State.CONNECTING) {
                LOG.debug("{}: no ESTABLISHED within {} ms of accepting", this, millis);
                unsafe().close(unsafe().voidPromise());
            }
        }, millis, TimeUnit.MILLISECONDS);
    }

    /**
     * Server side: the connection could not be set up (its registration on a worker loop, its resources, the accept);
     * the client is told at once with a reject (private data {@link #SETUP_FAILED}) instead of waiting out its
     * connect timeout, as destroying the id alone leaves it to. Once only, and never after the accept went out.
     */
    private void refuseRequest(Throwable cause) {
        if (requestAnswered || id == null) {
            return;
        }
        requestAnswered = true;
        LOG.warn("{}: refusing a connection request: {}", this, cause.toString());
        try {
            id.reject(SETUP_FAILED);
        } catch (RdmaException | RuntimeException e) {
            LOG.debug("{}: reject", this, e);
        }
    }

    private void onServerCmEvent(CmEvent e) {
        switch (e.type()) {
            case ESTABLISHED -> {
                if (state != State.CONNECTING) {
                    return;
                }
                connected();
            }
            case DISCONNECTED, DEVICE_REMOVAL, TIMEWAIT_EXIT, CONNECT_ERROR, UNREACHABLE, REJECTED -> peerGone(e);
            default -> LOG.debug("{}: rdma_cm event {}", this, e);
        }
    }

    private void setUpResources() throws RdmaException {
        DeviceResources device = handler.device(id.context());
        res = ConnectionResources.create(device, id, config.getReceiveQueueDepth(), config.getSendQueueDepth(),
                config.getBufferSize());
        handler.watchCq(io, res.cq);
        maxTransfer = (int) Math.min(Math.min(config.getMaxTransfer(), SlabPool.MAX_CHUNK),
                handler.poolLimitBytes() / 2);
        if (!config.userAllocator()) {
            config.installAllocator(device.pool.allocator());
        }
    }

    private void startStream() {
        flow = new CreditFlow(config.getReceiveQueueDepth(), peer.receiveDepth());
        freeSlots = new int[res.sendDepth];
        for (int i = 0; i < res.sendDepth; i++) {
            freeSlots[i] = res.sendDepth - 1 - i;
        }
        freeCount = res.sendDepth;
        sendHolds = new ByteBuf[res.sendDepth];
        inbound = new IntRing(res.receiveDepth + 2);
        local = id.localAddress().orElse(null);
        remote = id.peerAddress().orElse(null);
    }

    /** Stream start probe (siw): a zero-length READ, again after each wait without an answer. */
    private void probe() {
        if (state != State.CONNECTING || probeAnswered) {
            return;
        }
        if (probes < StreamStartProbe.MAX_PROBES) {
            probes++;
            try {
                res.qp.postRead(WrIds.of(WrIds.PROBE, probes), res.sendRegion, 0, 0, 0L, 0, SendFlags.SIGNALED);
            } catch (RdmaException | RuntimeException e) {
                failConnect(connectFailure("the stream start probe", e));
                return;
            }
        }
        long wait = probeWaitNanos;
        probeWaitNanos = StreamStartProbe.nextWaitNanos(probeWaitNanos);
        eventLoop().schedule(this::probe, wait, TimeUnit.NANOSECONDS);
    }

    private void connected() {
        state = State.ACTIVE;
        LOG.debug("{}: connected", this);
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
        }
        ChannelPromise p = connectPromise;
        connectPromise = null;
        boolean promiseSet = p == null || p.trySuccess();
        pipeline().fireChannelActive();
        if (!promiseSet) {
            unsafe().close(unsafe().voidPromise()); // cancelled meanwhile
            return;
        }
        onCompletionsDrained(); // what arrived before ESTABLISHED was taken: deliver it, return its credits
    }

    private void failConnect(Throwable cause) {
        ChannelPromise p = connectPromise;
        connectPromise = null;
        if (p != null) {
            p.tryFailure(cause);
        }
        if (isOpen()) {
            unsafe().close(unsafe().voidPromise());
        }
    }

    /** Closes a failed attempt's id and resources before the next (CONNECT_ERROR). */
    private void dropAttempt() {
        if (res != null) {
            handler.unwatchCq(res.cq);
        }
        if (id != null) {
            handler.unwatchCmId(id);
            id.close();
            id = null;
        }
        if (res != null) {
            res.close();
            res = null;
        }
    }

    private ConnectException connectFailure(String step, Exception e) {
        ConnectException c = new ConnectException("connect to " + requestedRemote + ": " + step + ": " + e.getMessage());
        c.initCause(e);
        return c;
    }

    private ConnectException cmFailure(String step, CmEvent e) {
        return new ConnectException("connect to " + requestedRemote + ": " + step + " ended in "
                + e.type().cName() + " (status " + e.status() + ")" + (e.type() == CmEventType.REJECTED
                ? ": refused by the peer (" + rejectReason(e.privateData()) + ")" : ""));
    }

    /** The server's reason, when the reject's private data is one of this transport's (IB carries it; iWARP may not). */
    static String rejectReason(byte[] privateData) {
        String text = privateData == null ? "" : new String(privateData, java.nio.charset.StandardCharsets.US_ASCII);
        if (text.startsWith(new String(SETUP_FAILED, java.nio.charset.StandardCharsets.US_ASCII))) {
            return "the server could not set the connection up";
        }
        if (text.startsWith(new String(RdmaServerChannel.BUSY, java.nio.charset.StandardCharsets.US_ASCII))) {
            return "busy: its connection limit or backlog";
        }
        return "no listener, or its connection limit";
    }

    // ------------------------------------------------------------------------------------------ completions

    private void onCompletion(WorkCompletions wc, int i) {
        if (state == State.CLOSED) {
            return;
        }
        completions++;
        long wrId = wc.wrId(i);
        int kind = WrIds.kind(wrId);
        int slot = WrIds.slot(wrId);
        if (!wc.isSuccess(i)) {
            WcStatus status = wc.status(i);
            if (kind == WrIds.PROBE && state == State.CONNECTING) {
                failConnect(new ConnectException("connect to " + requestedRemote + ": the stream start probe failed: "
                        + status));
                return;
            }
            if (status == WcStatus.WR_FLUSH_ERR) {
                // the queue pair is in the error state, by a disconnect (the peer's or ours): every posted receive
                // comes back flushed. Not an error of its own: whatever caused it was reported, or is a close
                if (state == State.ACTIVE) {
                    deliverInbound(); // what arrived before the disconnect, for a pipeline that reads
                    unsafe().close(unsafe().voidPromise());
                }
                return;
            }
            fail(new IOException("RDMA " + kindName(kind) + " failed on " + deviceName() + ": " + status
                    + " (vendor error 0x" + Integer.toHexString(wc.vendorError(i)) + ")"));
            return;
        }
        try {
            switch (kind) {
                case WrIds.RECEIVE -> onReceive(slot, wc.byteLength(i));
                case WrIds.SEND -> onSendCompleted(slot);
                case WrIds.PROBE -> {
                    if (state == State.CONNECTING && !probeAnswered) {
                        probeAnswered = true;
                        if (probes > 1) {
                            LOG.info("connect to {}: stream start probe {} answered", requestedRemote, probes);
                        }
                        connected();
                    }
                }
                default -> { }
            }
        } catch (RdmaException | RuntimeException e) {
            fail(e instanceof IOException io ? io : new IOException(e.getMessage(), e));
        }
    }

    private static String kindName(int kind) {
        return switch (kind) {
            case WrIds.RECEIVE -> "receive";
            case WrIds.SEND -> "SEND";
            case WrIds.WRITE -> "WRITE";
            case WrIds.PROBE -> "READ (stream start probe)";
            default -> "request";
        };
    }

    private void onReceive(int slot, int byteLength) throws RdmaException {
        receivesCompleted++;
        MemorySegment seg = res.receives;
        long off = res.receiveOffset(slot);
        String bad = Frame.check(seg, off, Math.min(byteLength, res.bufferSize), maxTransfer);
        if (bad != null) {
            protocolError(bad);
            return;
        }
        try {
            flow.onCreditsReturned(Frame.credits(seg, off), peer.receiveDepth());
        } catch (IllegalStateException e) {
            protocolError(e.getMessage());
            return;
        }
        int length = Frame.length(seg, off);
        switch (Frame.type(seg, off)) {
            case Frame.DATA, Frame.FIN -> inbound.add(slot);
            case Frame.CREDIT -> repost(slot);
            case Frame.RTS -> {
                repost(slot);
                if (requestedTransfer != 0 || grantTarget != null) {
                    protocolError("a second RTS before the first transfer was done");
                    return;
                }
                requestedTransfer = length;
                grant();
            }
            case Frame.CTS -> {
                long address = Frame.grantAddress(seg, off);
                int rkey = Frame.grantRkey(seg, off);
                repost(slot);
                if (!awaitingCts || length != largeLength) {
                    protocolError("CTS for " + length + " bytes, none requested");
                    return;
                }
                writeLarge(address, rkey);
            }
            case Frame.DONE -> {
                repost(slot);
                if (grantTarget == null || ctsPending || length != grantLength) {
                    protocolError("DONE for " + length + " bytes, no such transfer granted");
                    return;
                }
                grantRegion.close(); // the peer's right to this buffer ends here
                grantRegion = null;
                SlabByteBuf target = grantTarget;
                grantTarget = null;
                target.writerIndex(length);
                bulkTransfersReceived++;
                inboundLarge.addLast(target);
                inbound.add(LARGE_MARK);
            }
            default -> protocolError("frame type " + Frame.type(seg, off));
        }
    }

    private void repost(int slot) throws RdmaException {
        res.postReceive(slot);
        flow.onReposted();
    }

    private void onSendCompleted(int slot) {
        outstandingSends--;
        ByteBuf written = sendHolds[slot];
        if (written != null) {
            sendHolds[slot] = null;
            written.release();
        }
        freeSlots[freeCount++] = slot;
    }

    private void onCompletionsDrained() {
        drains++;
        if (state != State.ACTIVE) {
            return;
        }
        deliverInbound();
        sendControl();
        if (writeBlocked && state == State.ACTIVE) {
            writeBlocked = false;
            ((RdmaUnsafe) unsafe()).resumeWrites();
        }
        finishShutdownOutputIfDrained();
    }

    // ------------------------------------------------------------------------------------------------ reading

    @Override
    protected void doBeginRead() {
        if (state != State.ACTIVE) {
            return;
        }
        readPending = true;
        deliverInbound();
        sendControl();
    }

    /** Hands received frames to the pipeline in stream order while it reads; posts their buffers again. */
    private void deliverInbound() {
        if (delivering || inbound == null) {
            return;
        }
        delivering = true;
        try {
            int delivered = 0;
            int max = Math.max(1, config.getMaxMessagesPerRead());
            while (!inbound.isEmpty() && state == State.ACTIVE && (readPending || config.isAutoRead())) {
                int item = inbound.poll();
                if (item == LARGE_MARK) {
                    pipeline().fireChannelRead(inboundLarge.pollFirst());
                } else if (Frame.type(res.receives, res.receiveOffset(item)) == Frame.FIN) {
                    repost(item);
                    inputShutdown = true;
                    delivered++;
                    break;
                } else {
                    ByteBuf b = copyOut(item);
                    repost(item);
                    pipeline().fireChannelRead(b);
                }
                delivered++;
                if (!config.isAutoRead() && delivered >= max) {
                    readPending = false;
                }
            }
            if (delivered > 0) {
                if (!config.isAutoRead()) {
                    readPending = false;
                }
                pipeline().fireChannelReadComplete();
            }
            if (inputShutdown && state == State.ACTIVE) {
                inputShutdownReached();
            }
            if (requestedTransfer != 0 && grantTarget == null && grantRetry == null) {
                grant(); // waited for the pipeline to take the last transfer's buffer
            }
        } catch (RdmaException | RuntimeException e) {
            fail(e instanceof RdmaException r ? new IOException(r.getMessage(), r) : e);
        } finally {
            delivering = false;
        }
    }

    private boolean inputShutdownEventFired;

    private void inputShutdownReached() {
        if (inputShutdownEventFired) {
            return;
        }
        inputShutdownEventFired = true;
        if (config.isAllowHalfClosure()) {
            pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
        } else {
            unsafe().close(unsafe().voidPromise());
        }
    }

    /** The DATA payload of receive {@code slot}, copied into a buffer of the channel's allocator. */
    private ByteBuf copyOut(int slot) {
        long off = res.receiveOffset(slot);
        int length = Frame.length(res.receives, off);
        ByteBuf b = config.getAllocator().directBuffer(length);
        if (b instanceof SlabByteBuf s && s.isRegistered() && b.writerIndex() == 0) {
            MemorySegment.copy(res.receives, off + Frame.HEADER, s.chunk, 0, length);
            b.writerIndex(length);
        } else {
            ByteBuffer v = res.receiveViews[slot];
            v.limit(Frame.HEADER + length).position(Frame.HEADER);
            b.writeBytes(v);
        }
        return b;
    }

    /** Grants the requested transfer a buffer of the pool, registered for the peer's WRITE of it alone. */
    private void grant() throws RdmaException {
        if (requestedTransfer == 0 || grantTarget != null || state != State.ACTIVE) {
            return;
        }
        if (!inboundLarge.isEmpty()) {
            return; // the pipeline has not taken the last one: memory per connection stays at one transfer
        }
        SlabByteBuf target = res.device.pool.allocate(requestedTransfer, requestedTransfer);
        if (target == null) {
            // the pool is at its limit: try again shortly (the peer's data waits, bounded by its own buffers)
            grantRetry = eventLoop().schedule(() -> {
                grantRetry = null;
                try {
                    grant();
                    sendControl();
                } catch (RdmaException | RuntimeException e) {
                    fail(new IOException(e.getMessage(), e));
                }
            }, 5, TimeUnit.MILLISECONDS);
            return;
        }
        try {
            grantRegion = res.device.pd.register(target.chunk.asSlice(0, requestedTransfer),
                    Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        } catch (RdmaException | RuntimeException e) {
            target.release();
            throw e;
        }
        grantTarget = target;
        grantLength = requestedTransfer;
        requestedTransfer = 0;
        ctsPending = true;
    }

    // ------------------------------------------------------------------------------------------------ writing

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf) {
            return msg;
        }
        throw new UnsupportedOperationException("an RDMA channel writes ByteBufs only, not "
                + (msg == null ? "null" : msg.getClass().getName()));
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (flow == null) {
            throw new NotYetConnectedException();
        }
        while (true) {
            Object msg = in.current();
            if (msg == null) {
                break;
            }
            ByteBuf buf = (ByteBuf) msg;
            int readable = buf.readableBytes();
            if (readable == 0) {
                in.remove();
                continue;
            }
            if (awaitingCts) {
                writeBlocked = true; // the stream's order: nothing passes a bulk transfer waiting for its grant
                return;
            }
            if (largeEligible(readable)) {
                if (startLarge(in, buf, readable)) {
                    continue;
                }
                if (writeBlocked) {
                    return;
                }
                // no registered memory for a copy now: this one goes by SENDs
            }
            if (!sendInline(in)) {
                writeBlocked = true;
                return;
            }
        }
        sendControl();
        finishShutdownOutputIfDrained();
    }

    private boolean largeEligible(int readable) {
        int threshold = config.getLargeWriteThreshold();
        return threshold > 0 && readable >= threshold && peer.maxTransfer() > 0;
    }

    /** Gathers written bytes into one send buffer and SENDs it; false without a credit or a free buffer. */
    private boolean sendInline(ChannelOutboundBuffer in) throws RdmaException {
        if (!flow.canSend(0) || freeCount == 0) {
            return false;
        }
        int slot = freeSlots[--freeCount];
        long base = res.sendOffset(slot);
        int limit = Math.min(res.bufferSize, peer.bufferSize());
        int off = Frame.HEADER;
        while (off < limit) {
            Object m = in.current();
            if (m == null) {
                break;
            }
            ByteBuf b = (ByteBuf) m;
            int readable = b.readableBytes();
            if (readable == 0) {
                in.remove();
                continue;
            }
            if (off > Frame.HEADER && largeEligible(readable)) {
                break;
            }
            int n = Math.min(readable, limit - off);
            copyInto(b, b.readerIndex(), slot, base + off, n);
            in.removeBytes(n);
            off += n;
        }
        Frame.writeHeader(res.sends, base, Frame.DATA, flow.onSend(), off - Frame.HEADER);
        post(slot, off);
        return true;
    }

    private void copyInto(ByteBuf b, int index, int slot, long at, int n) {
        if (b instanceof SlabByteBuf s && s.isRegistered()) {
            MemorySegment.copy(s.chunk, index, res.sends, at, n);
        } else if (b.hasArray()) {
            MemorySegment.copy(b.array(), b.arrayOffset() + index, res.sends, JAVA_BYTE, at, n);
        } else {
            ByteBuffer v = res.sendViews[slot];
            int rel = (int) (at - res.sendOffset(slot));
            v.limit(rel + n).position(rel);
            b.getBytes(index, v);
        }
    }

    private void post(int slot, int length) throws RdmaException {
        res.qp.postSend(WrIds.send(slot), res.sendRegion, res.sendOffset(slot), length, SendFlags.SIGNALED);
        outstandingSends++;
    }

    /** Sends a control frame of {@code type} if a credit and a send buffer are free; false if not. */
    private boolean sendControl(byte type, int length) throws RdmaException {
        boolean creditFrame = type == Frame.CREDIT;
        if (freeCount == 0 || (creditFrame ? flow.credits() < 1 : !flow.canSend(0))) {
            return false;
        }
        int slot = freeSlots[--freeCount];
        long base = res.sendOffset(slot);
        Frame.writeHeader(res.sends, base, type, flow.onSend(), length);
        int size = Frame.HEADER;
        if (type == Frame.CTS) {
            Frame.writeGrant(res.sends, base, grantRegion.address(), grantRegion.rkey());
            size = Frame.CTS_LENGTH;
        }
        post(slot, size);
        return true;
    }

    /** The control frames that are due: a grant (CTS), the FIN of a shut output, returned credits. */
    private void sendControl() {
        if (state != State.ACTIVE || flow == null) {
            return;
        }
        try {
            if (ctsPending && sendControl(Frame.CTS, grantLength)) {
                ctsPending = false;
            }
            if (finPending && !awaitingCts && (unsafe().outboundBuffer() == null
                    || unsafe().outboundBuffer().isEmpty()) && sendControl(Frame.FIN, 0)) {
                finPending = false;
            }
            if (flow.creditFrameDue()) {
                sendControl(Frame.CREDIT, 0);
            }
        } catch (RdmaException | RuntimeException e) {
            fail(new IOException(e.getMessage(), e));
        }
    }

    /** Starts a bulk transfer of the head of {@code buf}: RTS now, the WRITE and DONE when CTS comes. */
    private boolean startLarge(ChannelOutboundBuffer in, ByteBuf buf, int readable) throws RdmaException {
        if (!flow.canSend(1) || freeCount < 2) {
            writeBlocked = true;
            return false;
        }
        int chunk = Math.min(readable, peer.maxTransfer());
        if (buf instanceof SlabByteBuf s && s.isRegistered() && s.region().protectionDomain() == res.device.pd) {
            largeSource = buf.retain(); // zero-copy: WRITE from the application's buffer
            largeRegion = s.region();
            largeOffset = s.offset + buf.readerIndex();
        } else {
            SlabByteBuf staging = res.device.pool.allocate(chunk, chunk);
            if (staging == null) {
                return false;
            }
            staging.setBytes(0, buf, buf.readerIndex(), chunk);
            largeSource = staging;
            largeRegion = staging.region();
            largeOffset = staging.offset;
        }
        largeLength = chunk;
        in.removeBytes(chunk);
        int slot = freeSlots[--freeCount];
        largeDoneSlot = freeSlots[--freeCount];
        Frame.writeHeader(res.sends, res.sendOffset(slot), Frame.RTS, flow.onSend(), chunk);
        flow.reserve(1); // DONE's credit: the WRITE and DONE go out the moment CTS comes
        post(slot, Frame.HEADER);
        awaitingCts = true;
        return true;
    }

    private void writeLarge(long address, int rkey) throws RdmaException {
        awaitingCts = false;
        res.qp.postWrite(WrIds.of(WrIds.WRITE, 0), largeRegion, largeOffset, largeLength, address, rkey,
                SendFlags.NONE);
        int slot = largeDoneSlot;
        Frame.writeHeader(res.sends, res.sendOffset(slot), Frame.DONE, flow.onReservedSend(), largeLength);
        post(slot, Frame.HEADER);
        largeDoneSlot = -1;
        sendHolds[slot] = largeSource; // released when DONE completes: the WRITE before it has then completed too
        largeSource = null;
        largeRegion = null;
        writeBlocked = true; // resume the writes that waited behind the transfer
    }

    // ------------------------------------------------------------------------------------------ half-close

    @Override
    public boolean isInputShutdown() {
        return inputShutdown;
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown;
    }

    @Override
    public boolean isShutdown() {
        return inputShutdown && outputShutdown || !isActive();
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    /**
     * Half-close: after everything written before it has been sent, a FIN tells the peer no more bytes follow;
     * reading goes on. Completes when the outbound buffer is drained and the FIN queued.
     */
    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        if (eventLoop().inEventLoop()) {
            flush();
            if (shutdownOutputPromise != null) {
                promise.setFailure(new IllegalStateException("shutdownOutput in progress"));
            } else {
                shutdownOutputPromise = promise;
                finishShutdownOutputIfDrained();
            }
        } else {
            eventLoop().execute(() -> shutdownOutput(promise));
        }
        return promise;
    }

    private void finishShutdownOutputIfDrained() {
        ChannelPromise p = shutdownOutputPromise;
        if (p == null || awaitingCts) {
            return;
        }
        ChannelOutboundBuffer out = unsafe().outboundBuffer();
        if (out != null && !out.isEmpty()) {
            return;
        }
        shutdownOutputPromise = null;
        ((RdmaUnsafe) unsafe()).shutdownOutputNow(p);
    }

    @Override
    protected void doShutdownOutput() {
        outputShutdown = true;
        finPending = true;
        sendControl();
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    /** Not supported: the peer cannot be told to stop sending except by closing (as with RDMA's RC). */
    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        return promise.setFailure(new UnsupportedOperationException("an RDMA channel cannot shut its input down "
                + "alone: close it, or let the peer shut its output down"));
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        return shutdownOutput(promise);
    }

    // ---------------------------------------------------------------------------------------------- closing

    private void protocolError(String what) {
        fail(new IOException("peer broke the netty-rdma protocol: " + what));
    }

    /** An error of the connection: exceptionCaught, then close. */
    private void fail(Throwable cause) {
        if (state == State.CLOSED) {
            return;
        }
        if (state == State.CONNECTING) {
            failConnect(cause);
            return;
        }
        pipeline().fireExceptionCaught(cause);
        unsafe().close(unsafe().voidPromise());
    }

    /** The peer disconnected or vanished: what it sent before is delivered, then the channel closes. */
    private void peerGone(CmEvent e) {
        if (state == State.CLOSED) {
            return;
        }
        if (state == State.CONNECTING) {
            failConnect(new ConnectException("connect to " + (requestedRemote != null ? requestedRemote : remote)
                    + ": " + e.type().cName()));
            return;
        }
        LOG.debug("{}: {} from the peer", this, e.type().cName());
        if (id != null && e.type() == CmEventType.DISCONNECTED) {
            try {
                id.disconnect(); // on RoCE the DREP that ends the peer's own wait
            } catch (RdmaException | RuntimeException ignored) {
                // gone already
            }
        }
        // the CM event may overtake completions of what the peer sent before it: take them first
        if (handler != null && res != null) {
            try {
                handler.drainNow(res.cq);
            } catch (RdmaException | RuntimeException ignored) {
                // the queue pair is in error: nothing more to take
            }
        }
        if (config.isAutoRead() || readPending) {
            deliverInbound();
        }
        unsafe().close(unsafe().voidPromise());
    }

    /** Binds the local end of the coming connection (the address of the device to use; port 0: any). */
    @Override
    protected void doBind(SocketAddress localAddress) {
        if (!(localAddress instanceof InetSocketAddress a) || a.isUnresolved()) {
            throw new IllegalArgumentException("an RDMA channel binds a resolved InetSocketAddress, not "
                    + localAddress);
        }
        requestedLocal = a;
    }

    @Override
    protected void doDisconnect() {
        doClose();
    }

    @Override
    protected void doClose() {
        if (state == State.CLOSED) {
            return;
        }
        boolean established = state == State.ACTIVE;
        state = State.CLOSED;
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
        }
        if (grantRetry != null) {
            grantRetry.cancel(false);
        }
        ChannelPromise p = connectPromise;
        connectPromise = null;
        if (p != null) {
            p.tryFailure(new java.nio.channels.ClosedChannelException());
        }
        releaseBuffers();
        if (server != null) {
            server.childClosed();
            refuseRequest(new IllegalStateException("closed before its request was accepted (registration on a "
                    + "worker loop failed?)"));
        }
        if (established && outstandingSends > 0 && res != null && handler != null) {
            // what was sent should arrive: keep the connection until the peer acknowledged it (or a deadline)
            Lingering lingering = new Lingering(id, res, outstandingSends, eventsHandler, sendHolds);
            handler.linger(io, lingering, res.cq, id, eventsHandler);
            eventLoop().schedule(lingering::finish, LINGER_MILLIS, TimeUnit.MILLISECONDS);
        } else {
            teardown(id, res, established);
            releaseHolds(sendHolds);
        }
        sendHolds = null;
        id = null;
        res = null;
    }

    private void teardown(CmId cmId, ConnectionResources r, boolean disconnect) {
        if (r != null && handler != null) {
            handler.unwatchCq(r.cq);
        }
        if (cmId != null) {
            (eventsHandler != null ? eventsHandler : handler).unwatchCmId(cmId);
            if (disconnect) {
                try {
                    cmId.disconnect();
                } catch (RdmaException | RuntimeException ignored) {
                    // already disconnected
                }
            }
            cmId.close();
        }
        if (r != null) {
            r.close();
        }
    }

    /**
     * Releases the sources of WRITEs whose DONE never completed. Only once the queue pair is destroyed (or was never
     * given them): before that the device may still read them, and a buffer reused meanwhile would send another
     * writer's bytes into the peer's grant.
     */
    private static void releaseHolds(ByteBuf[] holds) {
        if (holds == null) {
            return;
        }
        for (int i = 0; i < holds.length; i++) {
            if (holds[i] != null) {
                holds[i].release();
                holds[i] = null;
            }
        }
    }

    private void releaseBuffers() {
        if (largeSource != null) {
            largeSource.release();
            largeSource = null;
        }
        if (grantRegion != null) {
            grantRegion.close();
            grantRegion = null;
        }
        if (grantTarget != null) {
            grantTarget.release();
            grantTarget = null;
        }
        ByteBuf b;
        while ((b = inboundLarge.pollFirst()) != null) {
            b.release();
        }
        if (inbound != null) {
            inbound.clear();
        }
        ChannelPromise s = shutdownOutputPromise;
        shutdownOutputPromise = null;
        if (s != null) {
            s.tryFailure(new java.nio.channels.ClosedChannelException());
        }
    }

    /**
     * The stream's state, for a test that finds the stream stalled (call on the channel's event loop): credits,
     * send buffers, what waits to be written or delivered, and how many completions came.
     */
    String streamState() {
        ChannelOutboundBuffer out = unsafe().outboundBuffer();
        return this + ": credits " + (flow == null ? "-" : flow.credits() + ", owed " + flow.owed())
                + ", free send buffers " + freeCount + ", SENDs outstanding " + outstandingSends
                + ", writeBlocked " + writeBlocked + ", awaitingCts " + awaitingCts
                + ", outbound " + (out == null ? "-" : out.size() + " msgs/" + out.totalPendingWriteBytes() + " B")
                + ", writable " + isWritable() + ", inbound " + (inbound == null ? "-" : inbound.size())
                + ", inboundLarge " + inboundLarge.size() + ", readPending " + readPending + ", autoRead "
                + config.isAutoRead() + ", requestedTransfer " + requestedTransfer + ", granted "
                + (grantTarget != null) + ", ctsPending " + ctsPending + ", completions " + completions
                + ", receives " + receivesCompleted + ", drains " + drains;
    }

    private long completions;
    private long receivesCompleted;
    private long drains;

    @Override
    public String toString() {
        return "RdmaChannel[" + (local != null ? local : requestedLocal) + " -> "
                + (remote != null ? remote : requestedRemote) + (res != null ? " on " + deviceName() : "") + ", "
                + state + "]";
    }

    // ----------------------------------------------------------------------------------------------- the handle

    /** The channel's I/O side, as its event loop's {@link RdmaIoHandler} sees it. */
    private final class Io implements RdmaIoHandle {
        @Override
        public void completion(WorkCompletions wc, int i) {
            onCompletion(wc, i);
        }

        @Override
        public void completionsDrained() {
            onCompletionsDrained();
        }

        @Override
        public void cmEvent(CmEvent e) {
            EventLoop loop = eventLoop();
            if (isRegistered() && !loop.inEventLoop()) {
                loop.execute(() -> cmEvent(e));
                return;
            }
            try {
                if (server != null) {
                    onServerCmEvent(e);
                } else {
                    onClientCmEvent(e);
                }
            } catch (RdmaException | RuntimeException ex) {
                fail(ex);
            }
        }

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            if (event instanceof CmIoEvent c) {
                cmEvent(c.event());
            }
        }

        @Override
        public void close() {
            unsafe().close(unsafe().voidPromise());
        }

        @Override
        public void closeNow() {
            unsafe().closeForcibly();
        }

        @Override
        public String toString() {
            return RdmaChannel.this.toString();
        }
    }

    /**
     * A closed channel's connection kept until its posted SENDs are acknowledged: then (or at the deadline) it
     * disconnects and frees everything, as a TCP socket's close delivers what was queued before its FIN.
     */
    final class Lingering implements RdmaIoHandle {
        private final CmId cmId;
        private final ConnectionResources r;
        private final RdmaIoHandler events;
        /** The channel's WRITE sources still in flight: released after the queue pair is destroyed. */
        private final ByteBuf[] holds;
        private int outstanding;
        private boolean done;

        Lingering(CmId cmId, ConnectionResources r, int outstanding, RdmaIoHandler events, ByteBuf[] holds) {
            this.cmId = cmId;
            this.r = r;
            this.outstanding = outstanding;
            this.events = events;
            this.holds = holds;
        }

        ConnectionResources resources() {
            return r;
        }

        @Override
        public void completion(WorkCompletions wc, int i) {
            if (WrIds.kind(wc.wrId(i)) == WrIds.SEND) {
                outstanding--;
            }
            if (!wc.isSuccess(i)) {
                outstanding = 0;
            }
        }

        @Override
        public void completionsDrained() {
            if (outstanding <= 0) {
                finish();
            }
        }

        @Override
        public void cmEvent(CmEvent e) {
            // the peer went meanwhile: nothing more will be acknowledged
            handler.executeOnLoop(this::finish);
        }

        void finish() {
            if (done) {
                return;
            }
            done = true;
            handler.endLinger(this);
            if (events != null) {
                events.unwatchCmId(cmId);
            } else {
                handler.unwatchCmId(cmId);
            }
            try {
                cmId.disconnect();
            } catch (RdmaException | RuntimeException ignored) {
                // gone already
            }
            cmId.close();
            r.close();
            releaseHolds(holds);
        }

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            // only completions and CM events, delivered directly
        }

        @Override
        public void close() {
            finish();
        }
    }
}
