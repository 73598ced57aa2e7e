package org.panamardma.netty;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an {@link RdmaChannel}'s connection ends: a failure of it ({@code exceptionCaught}, then close), the peer's
 * disconnect (what it sent before is delivered first), and at close the connection itself, kept ({@link Lingering})
 * until the peer acknowledged the SENDs already posted, or torn down at once. Event loop only.
 */
final class ConnectionEnd {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaChannel.class);
    /** How long a closed channel waits for its posted SENDs to be acknowledged before it disconnects. */
    private static final long LINGER_MILLIS = 2000;

    private final RdmaChannel ch;

    ConnectionEnd(RdmaChannel ch) {
        this.ch = ch;
    }

    void protocolError(String what) {
        fail(new IOException("peer broke the netty-rdma protocol: " + what));
    }

    /** An error of the connection: exceptionCaught, then close. */
    void fail(Throwable cause) {
        if (ch.state == RdmaChannel.State.CLOSED) {
            return;
        }
        if (ch.state == RdmaChannel.State.CONNECTING) {
            ch.setUp.fail(cause);
            return;
        }
        ch.pipeline().fireExceptionCaught(cause);
        ch.unsafe().close(ch.unsafe().voidPromise());
    }

    /** The peer disconnected or vanished: what it sent before is delivered, then the channel closes. */
    void peerGone(CmEvent e) {
        if (ch.state == RdmaChannel.State.CLOSED) {
            return;
        }
        if (ch.state == RdmaChannel.State.CONNECTING) {
            ch.setUp.fail(new ConnectException(
                    "connect to " + (ch.requestedRemote != null ? ch.requestedRemote : ch.remoteAddress0()) + ": "
                            + e.type().cName()));
            return;
        }
        LOG.debug("{}: {} from the peer", ch, e.type().cName());
        if (ch.id != null && e.type() == CmEventType.DISCONNECTED) {
            try {
                ch.id.disconnect(); // on RoCE the DREP that ends the peer's own wait
            } catch (RdmaException | RuntimeException ignored) {
                // gone already
            }
        }
        // the CM event may overtake completions of what the peer sent before it: take them first
        if (ch.handler != null && ch.res != null) {
            try {
                ch.handler.drainNow(ch.res.cq);
            } catch (RdmaException | RuntimeException ignored) {
                // the queue pair is in error: nothing more to take
            }
        }
        if (ch.config().isAutoRead() || ch.receive.readPending()) {
            ch.receive.deliver();
        }
        ch.unsafe().close(ch.unsafe().voidPromise());
    }

    /**
     * The channel closed: its connection lingers while SENDs it posted are unacknowledged (as a TCP close delivers
     * what was queued), else ends now; the WRITE sources its SENDs hold go with it.
     */
    void closeConnection(boolean established, RdmaIoHandler eventsHandler) {
        ByteBuf[] holds = ch.send.takeHolds();
        RdmaIoHandler handler = ch.handler;
        ConnectionResources res = ch.res;
        int outstanding = ch.send.outstandingSends();
        if (established && outstanding > 0 && res != null && handler != null) {
            // what was sent should arrive: keep the connection until the peer acknowledged it (or a deadline)
            Lingering lingering = new Lingering(handler, ch.id, res, outstanding, eventsHandler, holds);
            handler.linger(ch.io, lingering, res.cq, ch.id, eventsHandler);
            LoopTasks.schedule(
                    ch.eventLoop(),
                    lingering::finish,
                    LINGER_MILLIS,
                    TimeUnit.MILLISECONDS,
                    e -> LOG.warn("{}: releasing the lingering connection failed", ch, e));
        } else {
            Lingering.teardown(handler, eventsHandler, ch.id, res, established);
            Lingering.releaseHolds(holds);
        }
    }
}
