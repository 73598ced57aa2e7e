package org.panamardma.netty;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;

/**
 * The send side of an {@link RdmaChannel}'s stream: its registered send buffers, written bytes gathered into
 * {@link Frame#DATA} SENDs while the peer's credits last ({@link CreditFlow}), and the control frames that are due
 * (a grant's CTS, the FIN of a shut output, returned credits). A write large enough goes to {@link BulkTransfer}.
 * Runs on the channel's event loop only.
 */
final class SendPath {
    private final RdmaChannel ch;
    private int[] freeSlots;
    private int freeCount;
    private int outstandingSends;
    /** A write waits (credits, send buffers or a grant): the channel flushes again when completions come. */
    boolean writeBlocked;
    /** The FIN of a shut output waits for the outbound buffer to drain and a credit. */
    boolean finPending;
    /**
     * Per send buffer, the source of the RDMA WRITE its DONE follows, released when that DONE completes (the WRITE
     * before it on the queue pair has then completed too). Per slot, not one field: the next transfer's RTS goes out
     * right after a DONE is posted, before that DONE completes, so several may be in flight.
     */
    private ByteBuf[] sendHolds;

    SendPath(RdmaChannel ch) {
        this.ch = ch;
    }

    /** The connection's stream starts: every send buffer free. */
    void start(int sendDepth) {
        freeSlots = new int[sendDepth];
        for (int i = 0; i < sendDepth; i++) {
            freeSlots[i] = sendDepth - 1 - i;
        }
        freeCount = sendDepth;
        sendHolds = new ByteBuf[sendDepth];
    }

    int freeCount() {
        return freeCount;
    }

    int outstandingSends() {
        return outstandingSends;
    }

    /** A free send buffer (the caller checked {@link #freeCount()}). */
    int takeSlot() {
        return freeSlots[--freeCount];
    }

    /** Keeps {@code source} until the SEND of {@code slot} completes. */
    void hold(int slot, ByteBuf source) {
        sendHolds[slot] = source;
    }

    /** The held WRITE sources, handed over at close (released once the queue pair is destroyed); none held after. */
    ByteBuf[] takeHolds() {
        ByteBuf[] h = sendHolds;
        sendHolds = null;
        return h;
    }

    /** Writes what the outbound buffer holds, as far as credits, send buffers and grants allow. */
    void write(ChannelOutboundBuffer in) throws Exception {
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
            if (ch.bulk.awaitingCts()) {
                writeBlocked = true; // the stream's order: nothing passes a bulk transfer waiting for its grant
                return;
            }
            if (largeEligible(readable)) {
                if (ch.bulk.start(in, buf, readable)) {
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
        ch.output.finishIfDrained();
    }

    private boolean largeEligible(int readable) {
        int threshold = ch.config().getLargeWriteThreshold();
        return threshold > 0 && readable >= threshold && ch.peer.maxTransfer() > 0;
    }

    /** Gathers written bytes into one send buffer and SENDs it; false without a credit or a free buffer. */
    private boolean sendInline(ChannelOutboundBuffer in) throws RdmaException {
        ConnectionResources res = ch.res;
        if (!ch.flow.canSend(0) || freeCount == 0) {
            return false;
        }
        int slot = freeSlots[--freeCount];
        long base = res.sendOffset(slot);
        int limit = Math.min(res.bufferSize, ch.peer.bufferSize());
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
        Frame.writeHeader(res.sends, base, Frame.DATA, ch.flow.onSend(), off - Frame.HEADER);
        post(slot, off);
        return true;
    }

    private void copyInto(ByteBuf b, int index, int slot, long at, int n) {
        ConnectionResources res = ch.res;
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

    /** SENDs the first {@code length} bytes of send buffer {@code slot}, signaled. */
    void post(int slot, int length) throws RdmaException {
        ConnectionResources res = ch.res;
        res.qp.postSend(WrIds.send(slot), res.sendRegion, res.sendOffset(slot), length, SendFlags.SIGNALED);
        outstandingSends++;
    }

    /** The SEND of {@code slot} completed: its buffer is free, the WRITE source it held released. */
    void onCompleted(int slot) {
        outstandingSends--;
        ByteBuf written = sendHolds[slot];
        if (written != null) {
            sendHolds[slot] = null;
            written.release();
        }
        freeSlots[freeCount++] = slot;
    }

    /** Sends a control frame of {@code type} if a credit and a send buffer are free; false if not. */
    private boolean sendControl(byte type, int length) throws RdmaException {
        ConnectionResources res = ch.res;
        boolean creditFrame = type == Frame.CREDIT;
        if (freeCount == 0 || (creditFrame ? ch.flow.credits() < 1 : !ch.flow.canSend(0))) {
            return false;
        }
        int slot = freeSlots[--freeCount];
        long base = res.sendOffset(slot);
        Frame.writeHeader(res.sends, base, type, ch.flow.onSend(), length);
        int size = Frame.HEADER;
        if (type == Frame.CTS) {
            ch.bulk.writeGrant(res.sends, base);
            size = Frame.CTS_LENGTH;
        }
        post(slot, size);
        return true;
    }

    /** The control frames that are due: a grant (CTS), the FIN of a shut output, returned credits. */
    void sendControl() {
        if (ch.state != RdmaChannel.State.ACTIVE || ch.flow == null) {
            return;
        }
        try {
            BulkTransfer bulk = ch.bulk;
            if (bulk.ctsPending() && sendControl(Frame.CTS, bulk.grantLength())) {
                bulk.ctsSent();
            }
            ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
            if (finPending && !bulk.awaitingCts() && (out == null || out.isEmpty()) && sendControl(Frame.FIN, 0)) {
                finPending = false;
            }
            if (ch.flow.creditFrameDue()) {
                sendControl(Frame.CREDIT, 0);
            }
        } catch (RdmaException | RuntimeException e) {
            ch.end.fail(new IOException(e.getMessage(), e));
        }
    }
}
