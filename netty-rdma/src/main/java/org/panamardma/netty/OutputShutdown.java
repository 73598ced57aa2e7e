package org.panamardma.netty;

import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import java.nio.channels.ClosedChannelException;

/**
 * An {@link RdmaChannel}'s half-close ({@code shutdownOutput()}): it waits until everything written before it has
 * been sent (the outbound buffer empty, no bulk transfer waiting for the peer's grant), then a {@link Frame#FIN} tells
 * the peer no more bytes follow; reading goes on. Event loop only.
 */
final class OutputShutdown {
    private final RdmaChannel ch;
    private boolean done;
    /** The shutdownOutput() waiting for what was written before it. */
    private ChannelPromise pending;

    OutputShutdown(RdmaChannel ch) {
        this.ch = ch;
    }

    /** The FIN is queued: nothing more is written. */
    boolean isDone() {
        return done;
    }

    /** A shutdownOutput() on the loop: done when what was written before it has gone. */
    void request(ChannelPromise promise) {
        ch.flush();
        if (pending != null) {
            promise.setFailure(new IllegalStateException("shutdownOutput in progress"));
        } else {
            pending = promise;
            finishIfDrained();
        }
    }

    /** After each step of the stream: the waiting shutdownOutput() goes ahead once nothing written waits. */
    void finishIfDrained() {
        ChannelPromise p = pending;
        if (p == null || ch.bulk.awaitingCts()) {
            return;
        }
        ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
        if (out != null && !out.isEmpty()) {
            return;
        }
        pending = null;
        ch.shutdownOutputNow(p);
    }

    /** Netty's shutdownOutput step (doShutdownOutput): the FIN goes after what is queued. */
    void sendFin() {
        done = true;
        ch.send.finPending = true;
        ch.send.sendControl();
    }

    /** The channel closed: a waiting shutdownOutput() fails. */
    void closed() {
        ChannelPromise p = pending;
        pending = null;
        if (p != null) {
            p.tryFailure(new ClosedChannelException());
        }
    }
}
