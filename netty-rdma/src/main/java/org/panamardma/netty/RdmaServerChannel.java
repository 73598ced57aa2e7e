package org.panamardma.netty;

import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Netty server channel listening with rdma_cm: {@code new ServerBootstrap().group(boss, workers)
 * .channel(RdmaServerChannel.class)}. Each connection request becomes an {@link RdmaChannel} handed to the pipeline
 * as {@code ServerBootstrap} expects; the child makes its resources on its own event loop, accepts, and becomes
 * active when rdma_cm reports the connection ESTABLISHED.
 *
 * <p>Bounded: at most {@link RdmaChannelOption#MAX_CONNECTIONS} connections at once (a request beyond is rejected,
 * with the private data "netty-rdma: busy"), a request whose private data is not this protocol's is rejected, and
 * while the pipeline does not read (AUTO_READ off) requests wait, at most {@code SO_BACKLOG} of them.
 */
public final class RdmaServerChannel extends AbstractServerChannel {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaServerChannel.class);
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    static final byte[] BUSY = "netty-rdma: busy".getBytes(StandardCharsets.US_ASCII);

    private final RdmaServerChannelConfig config = new RdmaServerChannelConfig(this);
    private final Io io = new Io();
    private final AtomicInteger connections = new AtomicInteger();
    private final ArrayDeque<CmEvent> waiting = new ArrayDeque<>();
    private RdmaIoHandler handler;
    private CmId listener;
    private InetSocketAddress local;
    private volatile boolean open = true;
    private boolean readPending;

    /** A server channel, not yet registered or bound (Netty's {@code ServerBootstrap} creates it reflectively). */
    public RdmaServerChannel() {}

    @Override
    public RdmaServerChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && listener != null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    /**
     * Connections of this server open now (accepted or being accepted).
     *
     * @return the open connections
     */
    public int connectionCount() {
        return connections.get();
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof IoEventLoop l && l.isCompatible(Io.class);
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        io.register(promise, h -> handler = h);
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        if (!(localAddress instanceof InetSocketAddress a) || a.isUnresolved()) {
            throw new IllegalArgumentException("an RDMA server binds a resolved InetSocketAddress (an RDMA device's "
                    + "address, or the wildcard), not " + localAddress);
        }
        CmId id = null;
        for (int attempt = 1; id == null; attempt++) {
            CmId tried = handler.cmChannel().createId();
            try {
                handler.watchCmId(tried, io);
                tried.bind(a);
                tried.listen(config.getBacklog());
                id = tried;
            } catch (RdmaException e) {
                handler.unwatchCmId(tried);
                tried.close();
                // port 0 on iWARP: the port rdma_cm chose may be one a TCP socket holds (CmConnector says why)
                if (!CmConnector.anotherPortMayListen(a, e, attempt)) {
                    throw e;
                }
                LOG.info(
                        "listening on {}: {} (the port rdma_cm chose is held by a TCP socket); trying another, "
                                + "attempt {} of {}",
                        a,
                        e.getMessage(),
                        attempt + 1,
                        CmConnector.LISTEN_ATTEMPTS);
            } catch (RuntimeException e) {
                handler.unwatchCmId(tried);
                tried.close();
                throw e;
            }
        }
        listener = id;
        local = id.localAddress().orElse(a);
        if (local.getPort() == 0) {
            local = new InetSocketAddress(local.getAddress(), id.localPort());
        }
    }

    @Override
    protected void doBeginRead() {
        readPending = true;
        acceptWaiting();
    }

    private void onConnectRequest(CmEvent e) {
        if (!open) {
            reject(e.id(), null, "the server is closed");
            return;
        }
        try {
            ConnectPrivateData.decode(e.privateData());
        } catch (IllegalArgumentException bad) {
            reject(e.id(), null, bad.getMessage());
            return;
        }
        if (waiting.size() >= config.getBacklog()) {
            reject(e.id(), BUSY, "the backlog of " + config.getBacklog() + " requests is full");
            return;
        }
        waiting.addLast(e);
        acceptWaiting();
    }

    private void acceptWaiting() {
        int accepted = 0;
        while (!waiting.isEmpty() && (readPending || config.isAutoRead())) {
            CmEvent e = waiting.pollFirst();
            if (connections.incrementAndGet() > config.getMaxConnections()) {
                connections.decrementAndGet();
                reject(e.id(), BUSY, "at its limit of " + config.getMaxConnections() + " connections");
                continue;
            }
            RdmaChannel child;
            try {
                child = new RdmaChannel(this, e.id(), e, handler);
            } catch (RuntimeException ex) {
                connections.decrementAndGet();
                reject(e.id(), null, ex.toString());
                continue;
            }
            child.registerEventsOf(e.id());
            accepted++;
            pipeline().fireChannelRead(child);
        }
        if (accepted > 0) {
            if (!config.isAutoRead()) {
                readPending = false;
            }
            pipeline().fireChannelReadComplete();
        }
    }

    private void reject(CmId id, byte[] why, String reason) {
        LOG.debug("rejecting a connection request: {}", reason);
        try {
            id.reject(why);
        } catch (RdmaException | RuntimeException ex) {
            LOG.debug("reject", ex);
        }
        id.close();
    }

    /** A child closed (on its own loop). */
    void childClosed() {
        connections.decrementAndGet();
    }

    @Override
    protected void doClose() {
        open = false;
        CmEvent e;
        while ((e = waiting.pollFirst()) != null) {
            reject(e.id(), BUSY, "the server closed");
        }
        if (listener != null) {
            handler.unwatchCmId(listener);
            listener.close();
            listener = null;
        }
    }

    @Override
    public String toString() {
        return "RdmaServerChannel[" + local + (open ? "" : ", closed") + "]";
    }

    /** The listener's I/O: connection requests from its rdma_cm id; no queue pair, so no completions. */
    private final class Io extends ChannelIoHandle {
        Io() {
            super(RdmaServerChannel.this);
        }

        @Override
        public void completion(WorkCompletions wc, int i) {
            // a listener has no queue pair
        }

        @Override
        public void completionsDrained() {}

        @Override
        public void cmEvent(CmEvent e) {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                onConnectRequest(e);
            } else {
                LOG.debug("{}: rdma_cm event {}", RdmaServerChannel.this, e);
            }
        }
    }
}
