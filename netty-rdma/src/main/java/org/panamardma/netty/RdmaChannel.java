package org.panamardma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Netty channel over one RDMA reliable connection (an rdma_cm id and its queue pair): a byte stream, as a socket
 * channel is, so that any handler works on it unchanged. Use it with an event loop group of {@link RdmaIoHandler}s:
 * {@code new Bootstrap().group(group).channel(RdmaChannel.class)}; a server makes them through
 * {@link RdmaServerChannel}.
 *
 * <p>Written bytes go as {@link Frame#DATA} SENDs while the peer's credits last ({@link SendPath}, {@link CreditFlow}:
 * writes beyond them stay in Netty's outbound buffer, so {@code isWritable()} turns false), large ones by RDMA WRITE
 * into a buffer the peer grants for that transfer alone ({@link BulkTransfer}); received frames reach the pipeline
 * while it reads ({@link ReceivePath}: one that does not read leaves the peer without credits).
 * {@code shutdownOutput()} sends {@link Frame#FIN} after what was written. A peer that disconnects or vanishes
 * closes the channel ({@code channelInactive}); a failed work request or a peer breaking the protocol first fires
 * {@code exceptionCaught} with an {@link IOException} naming it ({@link ConnectionEnd}). Connecting:
 * {@link ClientConnector}, {@link ServerAccept}; completions and rdma_cm events: {@link ChannelIo}.
 */
public final class RdmaChannel extends AbstractChannel implements DuplexChannel {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaChannel.class);
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

    enum State {
        NEW,
        CONNECTING,
        ACTIVE,
        CLOSED
    }

    private final RdmaChannelConfig config;
    final ChannelIo io = new ChannelIo(this);
    final ConnectionEnd end = new ConnectionEnd(this);
    /** Server side: the server's handler, whose rdma_cm event channel carries this id's events. */
    private final RdmaIoHandler eventsHandler;

    private final RdmaServerChannel server;
    /** Server side: the request it answers; null for a client. */
    final ServerAccept accept;

    RdmaIoHandler handler;
    State state = State.NEW;
    CmId id;
    ConnectionResources res;
    ConnectPrivateData peer;
    CreditFlow flow;
    private InetSocketAddress local;
    private InetSocketAddress remote;
    /** The largest transfer this side grants: the option, within one chunk of the pool and the pool's limit. */
    int maxTransfer;

    // connecting: where to (client), the connect's deadline (both sides)
    InetSocketAddress requestedRemote;
    InetSocketAddress requestedLocal;
    ChannelPromise connectPromise;
    ScheduledFuture<?> connectTimeout;
    /** Client side: the connect in progress, from {@code connect()} on. */
    ClientConnector connector;

    // the stream, once connected
    final SendPath send = new SendPath(this);
    final ReceivePath receive = new ReceivePath(this);
    final BulkTransfer bulk = new BulkTransfer(this);
    private boolean outputShutdown;
    private ChannelPromise shutdownOutputPromise;

    /** A client channel (Bootstrap makes it). */
    public RdmaChannel() {
        this(null, null, null, null);
    }

    /** A server's channel for an accepted request; its id's events come through {@code eventsHandler}. */
    RdmaChannel(RdmaServerChannel server, CmId id, CmEvent request, RdmaIoHandler eventsHandler) {
        super(server);
        this.server = server;
        this.id = id;
        this.accept = request != null ? new ServerAccept(this, request) : null;
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

    /**
     * The device the connection runs on ("rxe1", "siw0"), or null before it is connected.
     *
     * @return the device name, or null
     */
    public String deviceName() {
        return res == null ? null : res.device.context.deviceName();
    }

    /**
     * Bulk transfers this channel received by RDMA WRITE into buffers it granted (for tests and monitoring).
     *
     * @return the number of bulk transfers received
     */
    public long bulkTransfersReceived() {
        return bulk.transfersReceived();
    }

    /** The registered pool this channel's connection draws from (tests: nothing stays allocated), null if none. */
    SlabPool registeredPool() {
        ConnectionResources r = res;
        return r != null ? r.device.pool : null;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof IoEventLoop l && l.isCompatible(ChannelIo.class);
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
            if (accept != null && state == State.NEW) {
                try {
                    accept.accept();
                } catch (Throwable t) {
                    accept.refuse(t);
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
                promise.setFailure(new IllegalArgumentException(
                        "an RDMA channel connects to a resolved " + "InetSocketAddress, not " + remoteAddress));
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
            promise.addListener((ChannelFutureListener) future -> {
                if (future.isCancelled()) {
                    close(voidPromise());
                }
            });
            state = State.CONNECTING;
            ClientConnector.start(RdmaChannel.this);
        }

        void resumeWrites() {
            flush0();
        }

        void shutdownOutputNow(ChannelPromise promise) {
            shutdownOutput(promise);
        }
    }

    /** Writes that waited (credits, send buffers, a grant) go on: the outbound buffer is flushed again. */
    void resumeWrites() {
        ((RdmaUnsafe) unsafe()).resumeWrites();
    }

    ConnectionParameters parameters() {
        return ConnectionParameters.DEFAULTS.withPrivateData(
                new ConnectPrivateData(config.getReceiveQueueDepth(), config.getBufferSize(), maxTransfer).encode());
    }

    void setUpResources() throws RdmaException {
        DeviceResources device = handler.device(id.context());
        res = ConnectionResources.create(
                device, id, config.getReceiveQueueDepth(), config.getSendQueueDepth(), config.getBufferSize());
        handler.watchCq(io, res.cq);
        maxTransfer =
                (int) Math.min(Math.min(config.getMaxTransfer(), SlabPool.MAX_CHUNK), handler.poolLimitBytes() / 2);
        if (!config.userAllocator()) {
            config.installAllocator(device.pool.allocator());
        }
    }

    void startStream() {
        flow = new CreditFlow(config.getReceiveQueueDepth(), peer.receiveDepth());
        send.start(res.sendDepth);
        receive.start(res.receiveDepth);
        local = id.localAddress().orElse(null);
        remote = id.peerAddress().orElse(null);
    }

    void connected() {
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
        io.completionsDrained(); // what arrived before ESTABLISHED was taken: deliver it, return its credits
    }

    void failConnect(Throwable cause) {
        ChannelPromise p = connectPromise;
        connectPromise = null;
        if (p != null) {
            p.tryFailure(cause);
        }
        if (isOpen()) {
            unsafe().close(unsafe().voidPromise());
        }
    }

    // ---------------------------------------------------------------------------------------- reading, writing

    @Override
    protected void doBeginRead() {
        if (state != State.ACTIVE) {
            return;
        }
        receive.beginRead();
        send.sendControl();
    }

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
        send.write(in);
    }

    // ------------------------------------------------------------------------------------------ half-close

    @Override
    public boolean isInputShutdown() {
        return receive.inputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown;
    }

    @Override
    public boolean isShutdown() {
        return receive.inputShutdown() && outputShutdown || !isActive();
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
            eventLoop().execute(() -> {
                var _ = shutdownOutput(promise); // the caller's own promise, returned below
            });
        }
        return promise;
    }

    void finishShutdownOutputIfDrained() {
        ChannelPromise p = shutdownOutputPromise;
        if (p == null || bulk.awaitingCts()) {
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
        send.finPending = true;
        send.sendControl();
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

    /** Binds the local end of the coming connection (the address of the device to use; port 0: any). */
    @Override
    protected void doBind(SocketAddress localAddress) {
        if (!(localAddress instanceof InetSocketAddress a) || a.isUnresolved()) {
            throw new IllegalArgumentException(
                    "an RDMA channel binds a resolved InetSocketAddress, not " + localAddress);
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
        ChannelPromise p = connectPromise;
        connectPromise = null;
        if (p != null) {
            p.tryFailure(new java.nio.channels.ClosedChannelException());
        }
        bulk.release();
        receive.release();
        ChannelPromise s = shutdownOutputPromise;
        shutdownOutputPromise = null;
        if (s != null) {
            s.tryFailure(new java.nio.channels.ClosedChannelException());
        }
        if (server != null) {
            server.childClosed();
        }
        if (accept != null) {
            accept.refuse(new IllegalStateException(
                    "closed before its request was accepted (registration on a " + "worker loop failed?)"));
        }
        end.closeConnection(established, eventsHandler);
        id = null;
        res = null;
    }

    /**
     * The stream's state, for a test that finds the stream stalled (call on the channel's event loop): credits,
     * send buffers, what waits to be written or delivered, and how many completions came.
     */
    String streamState() {
        ChannelOutboundBuffer out = unsafe().outboundBuffer();
        return this + ": credits " + (flow == null ? "-" : flow.credits() + ", owed " + flow.owed())
                + ", free send buffers " + send.freeCount() + ", SENDs outstanding " + send.outstandingSends()
                + ", writeBlocked " + send.writeBlocked + ", " + bulk.state()
                + ", outbound " + (out == null ? "-" : out.size() + " msgs/" + out.totalPendingWriteBytes() + " B")
                + ", writable " + isWritable() + ", " + receive.state() + ", autoRead " + config.isAutoRead()
                + ", " + io.state();
    }

    @Override
    public String toString() {
        return "RdmaChannel[" + (local != null ? local : requestedLocal) + " -> "
                + (remote != null ? remote : requestedRemote) + (res != null ? " on " + deviceName() : "") + ", "
                + state + "]";
    }
}
