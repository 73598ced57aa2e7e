package org.panamardma.netty;

import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an {@link RdmaChannel}'s connection comes up, in the steps the client ({@link ClientConnector}) and the server
 * side ({@link ServerAccept}) share: the connection's resources on the id's device, the private data this side offers,
 * the stream started once the peer's is known; and the connect's promise and deadline, ended by {@link #connected()}
 * or {@link #fail}, or by the channel's close. Event loop only.
 */
final class ChannelSetUp {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaChannel.class);
    /** The deadline of a connect or an accept when CONNECT_TIMEOUT_MILLIS is 0: every wait has an end. */
    private static final int DEFAULT_TIMEOUT_MILLIS = 30_000;

    private final RdmaChannel ch;
    /** Client side: the connect() in progress; null on the server side and once connected or failed. */
    private ChannelPromise promise;

    private ScheduledFuture<?> deadline;
    /** The largest transfer this side grants: the option, within one chunk of the pool and the pool's limit. */
    private int maxTransfer;

    ChannelSetUp(RdmaChannel ch) {
        this.ch = ch;
    }

    /** A connect() is in progress. */
    boolean pending() {
        return promise != null;
    }

    /** Client side: {@code connect()} was called; {@code promise} completes when the stream has started. */
    void begin(ChannelPromise promise) {
        this.promise = promise;
    }

    /** How long a connect or an accept may take: CONNECT_TIMEOUT_MILLIS, or 30 s when it is 0. */
    int timeoutMillis() {
        int millis = ch.config().getConnectTimeoutMillis();
        return millis > 0 ? millis : DEFAULT_TIMEOUT_MILLIS;
    }

    /** Runs {@code expired} unless the connection is up (or the channel closed) within {@link #timeoutMillis()}. */
    void deadline(Runnable expired) {
        deadline = ch.eventLoop().schedule(expired, timeoutMillis(), TimeUnit.MILLISECONDS);
    }

    /** The largest bulk transfer this side grants the peer (0 before the resources are made). */
    int maxTransfer() {
        return maxTransfer;
    }

    /** The connection's queue pair and buffers on the id's device, its CQ watched by the channel's loop. */
    void makeResources() throws RdmaException {
        RdmaChannelConfig config = ch.config();
        DeviceResources device = ch.handler.device(ch.id.context());
        ch.res = ConnectionResources.create(
                device, ch.id, config.getReceiveQueueDepth(), config.getSendQueueDepth(), config.getBufferSize());
        ch.handler.watchCq(ch.io, ch.res.cq);
        maxTransfer =
                (int) Math.min(Math.min(config.getMaxTransfer(), SlabPool.MAX_CHUNK), ch.handler.poolLimitBytes() / 2);
        if (!config.userAllocator()) {
            config.installAllocator(device.pool.allocator());
        }
    }

    /**
     * What this side tells the peer in the connect or accept: its receive depth, buffer size and largest grant, and
     * where its stream start word is (on Soft-iWARP).
     */
    ConnectionParameters parameters() {
        RdmaChannelConfig config = ch.config();
        MemoryRegion word = ch.res.device.streamStart;
        ConnectPrivateData mine = new ConnectPrivateData(
                config.getReceiveQueueDepth(),
                config.getBufferSize(),
                maxTransfer,
                word == null ? 0 : word.rkey(),
                word == null ? 0L : word.address() + DeviceResources.WORD_OFFSET);
        return ConnectionParameters.DEFAULTS.withPrivateData(mine.encode());
    }

    /** The peer's private data known: credits, send and receive paths, and the connection's addresses. */
    void startStream() {
        ch.flow = new CreditFlow(ch.config().getReceiveQueueDepth(), ch.peer.receiveDepth());
        ch.send.start(ch.res.sendDepth);
        ch.receive.start(ch.res.receiveDepth);
        ch.local = ch.id.localAddress().orElse(null);
        ch.remote = ch.id.peerAddress().orElse(null);
    }

    /** The connection is up: the channel becomes active and takes what arrived before it was. */
    void connected() {
        ch.state = RdmaChannel.State.ACTIVE;
        LOG.debug("{}: connected", ch);
        cancelDeadline();
        ChannelPromise p = promise;
        promise = null;
        boolean promiseSet = p == null || p.trySuccess();
        ch.pipeline().fireChannelActive();
        if (!promiseSet) {
            ch.unsafe().close(ch.unsafe().voidPromise()); // cancelled meanwhile
            return;
        }
        ch.io.completionsDrained(); // what arrived before ESTABLISHED was taken: deliver it, return its credits
    }

    /** The connection could not be set up: the connect fails with {@code cause}, the channel closes. */
    void fail(Throwable cause) {
        ChannelPromise p = promise;
        promise = null;
        if (p != null) {
            p.tryFailure(cause);
        }
        if (ch.isOpen()) {
            ch.unsafe().close(ch.unsafe().voidPromise());
        }
    }

    /** The channel closed: no deadline left, a connect in progress fails. */
    void closed() {
        cancelDeadline();
        ChannelPromise p = promise;
        promise = null;
        if (p != null) {
            p.tryFailure(new ClosedChannelException());
        }
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
        }
    }
}
