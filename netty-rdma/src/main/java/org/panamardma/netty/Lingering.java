package org.panamardma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmId;

/**
 * A closed {@link RdmaChannel}'s connection kept until its posted SENDs are acknowledged: then (or at the deadline) it
 * disconnects and frees everything, as a TCP socket's close delivers what was queued before its FIN. Also how any
 * channel's connection ends ({@link #teardown}) and its WRITE sources are given back ({@link #releaseHolds}).
 */
final class Lingering implements RdmaIoHandle {
    /** The channel's loop, which polls the connection's CQ while it lingers. */
    private final RdmaIoHandler handler;

    private final CmId cmId;
    private final ConnectionResources r;
    /** Server side: the server's handler, whose rdma_cm event channel carries the id's events; else null. */
    private final RdmaIoHandler events;
    /** The channel's WRITE sources still in flight: released after the queue pair is destroyed. */
    private final ByteBuf[] holds;

    private int outstanding;
    private boolean done;

    Lingering(
            RdmaIoHandler handler,
            CmId cmId,
            ConnectionResources r,
            int outstanding,
            RdmaIoHandler events,
            ByteBuf[] holds) {
        this.handler = handler;
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

    /** Ends a connection at once: its CQ and id no longer watched, disconnected if it was, id and resources closed. */
    static void teardown(
            RdmaIoHandler handler, RdmaIoHandler eventsHandler, CmId cmId, ConnectionResources r, boolean disconnect) {
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
    static void releaseHolds(ByteBuf[] holds) {
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
}
