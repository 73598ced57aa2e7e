package org.panamardma.netty;

import io.netty.channel.EventLoop;
import java.io.IOException;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmEvent;

/**
 * An {@link RdmaChannel}'s I/O side, as its event loop's {@link RdmaIoHandler} sees it: each work completion handed to
 * the part of the channel it concerns (a receive to {@link ReceivePath}, a SEND to {@link SendPath}, a stream start
 * probe to {@link ClientConnector}), a failed one turned into the channel's failure or, flushed, into its close; after
 * each poll of the CQ the stream moved on (frames delivered, control frames sent, blocked writes resumed); rdma_cm
 * events to the client's connect or the server side's accept, on the channel's loop.
 */
final class ChannelIo extends ChannelIoHandle {
    private final RdmaChannel ch;
    private long completions;
    private long drains;

    ChannelIo(RdmaChannel ch) {
        super(ch);
        this.ch = ch;
    }

    @Override
    public void completion(WorkCompletions wc, int i) {
        if (ch.state == RdmaChannel.State.CLOSED) {
            return;
        }
        completions++;
        long wrId = wc.wrId(i);
        int kind = WrIds.kind(wrId);
        int slot = WrIds.slot(wrId);
        if (!wc.isSuccess(i)) {
            WcStatus status = wc.status(i);
            if (kind == WrIds.PROBE && ch.state == RdmaChannel.State.CONNECTING && ch.connector != null) {
                ch.connector.onProbeFailed(status);
                return;
            }
            if (status == WcStatus.WR_FLUSH_ERR) {
                // the queue pair is in the error state, by a disconnect (the peer's or ours): every posted receive
                // comes back flushed. Not an error of its own: whatever caused it was reported, or is a close
                if (ch.state == RdmaChannel.State.ACTIVE) {
                    ch.receive.deliver(); // what arrived before the disconnect, for a pipeline that reads
                    close();
                }
                return;
            }
            ch.end.fail(new IOException("RDMA " + kindName(kind) + " failed on " + ch.deviceName() + ": " + status
                    + " (vendor error 0x" + Integer.toHexString(wc.vendorError(i)) + ")"));
            return;
        }
        try {
            switch (kind) {
                case WrIds.RECEIVE -> ch.receive.onReceive(slot, wc.byteLength(i));
                case WrIds.SEND -> ch.send.onCompleted(slot);
                case WrIds.PROBE -> {
                    if (ch.connector != null) {
                        ch.connector.onProbeAnswered();
                    }
                }
                default -> {}
            }
        } catch (RdmaException | RuntimeException e) {
            ch.end.fail(e instanceof IOException io ? io : new IOException(e.getMessage(), e));
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

    @Override
    public void completionsDrained() {
        drains++;
        if (ch.state != RdmaChannel.State.ACTIVE) {
            return;
        }
        ch.receive.deliver();
        ch.send.sendControl();
        if (ch.send.writeBlocked && ch.state == RdmaChannel.State.ACTIVE) {
            ch.send.writeBlocked = false;
            ch.resumeWrites();
        }
        ch.output.finishIfDrained();
    }

    @Override
    public void cmEvent(CmEvent e) {
        EventLoop loop = ch.eventLoop();
        if (ch.isRegistered() && !loop.inEventLoop()) {
            loop.execute(() -> cmEvent(e));
            return;
        }
        try {
            if (ch.accept != null) {
                ch.accept.onCmEvent(e);
            } else {
                ch.connector.onCmEvent(e);
            }
        } catch (RdmaException | RuntimeException ex) {
            ch.end.fail(ex);
        }
    }

    /** For {@link RdmaChannel#streamState()}. */
    String state() {
        return "completions " + completions + ", drains " + drains;
    }

    @Override
    public String toString() {
        return ch.toString();
    }
}
