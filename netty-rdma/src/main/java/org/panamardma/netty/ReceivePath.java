package org.panamardma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.panamardma.verbs.RdmaException;

/**
 * The receive side of an {@link RdmaChannel}'s stream: each received frame checked ({@link Frame#check}), its credits
 * taken, DATA and FIN queued in stream order with the buffers of finished bulk transfers ({@link BulkTransfer}), and
 * handed to the pipeline while it reads ({@code AUTO_READ} or {@code read()}). A receive buffer is posted again only
 * when its bytes are delivered (or at once for a control frame), so a pipeline that does not read leaves the peer
 * without credits: memory per connection stays bounded. Event loop only.
 */
final class ReceivePath {
    /** The stream position of a bulk transfer's buffer in the inbound queue (receive slots are non-negative). */
    private static final int LARGE_MARK = -1;

    private final RdmaChannel ch;
    private IntRing inbound;
    private boolean readPending;
    private boolean delivering;
    private boolean inputShutdown;
    private boolean inputShutdownEventFired;
    private long receivesCompleted;
    /**
     * Receives that completed before the stream started, as (slot, byte length): on iWARP the server may send as soon
     * as it has accepted, and the client's CQ can hold that frame before its ESTABLISHED event is taken (the peer's
     * private data, hence its credits, are not known yet). They were taken for frames of a stream without a peer
     * (NullPointerException, the channel failed: a gRPC call on siw, 2026-11-27). Null once started.
     */
    private java.util.ArrayDeque<int[]> early = new java.util.ArrayDeque<>();

    ReceivePath(RdmaChannel ch) {
        this.ch = ch;
    }

    /**
     * The connection's stream starts: room for every receive buffer and two transfers in the inbound queue; then the
     * frames that arrived before it are taken, in their order.
     */
    void start(int receiveDepth) {
        inbound = new IntRing(receiveDepth + 2);
        java.util.ArrayDeque<int[]> before = early;
        early = null;
        int[] r;
        while ((r = before.poll()) != null) {
            try {
                onReceive(r[0], r[1]);
            } catch (RdmaException | RuntimeException e) {
                ch.end.fail(new IOException(e.getMessage(), e));
                return;
            }
        }
    }

    boolean inputShutdown() {
        return inputShutdown;
    }

    boolean readPending() {
        return readPending;
    }

    /** The pipeline asked to read ({@code doBeginRead}). */
    void beginRead() {
        readPending = true;
        deliver();
    }

    /** Receive {@code slot} completed with {@code byteLength} bytes: check it, take its credits, queue or act on it. */
    void onReceive(int slot, int byteLength) throws RdmaException {
        if (early != null) { // the stream has not started: taken when it does
            early.add(new int[] {slot, byteLength});
            return;
        }
        receivesCompleted++;
        ConnectionResources res = ch.res;
        MemorySegment seg = res.receives;
        long off = res.receiveOffset(slot);
        String bad = Frame.check(seg, off, Math.min(byteLength, res.bufferSize), ch.setUp.maxTransfer());
        if (bad != null) {
            ch.end.protocolError(bad);
            return;
        }
        try {
            ch.flow.onCreditsReturned(Frame.credits(seg, off), ch.peer.receiveDepth());
        } catch (IllegalStateException e) {
            ch.end.protocolError(e.getMessage());
            return;
        }
        int length = Frame.length(seg, off);
        switch (Frame.type(seg, off)) {
            case Frame.DATA, Frame.FIN -> inbound.add(slot);
            case Frame.CREDIT -> repost(slot);
            case Frame.RTS -> {
                repost(slot);
                ch.bulk.onRts(length);
            }
            case Frame.CTS -> {
                long address = Frame.grantAddress(seg, off);
                int rkey = Frame.grantRkey(seg, off);
                repost(slot);
                ch.bulk.onCts(length, address, rkey);
            }
            case Frame.DONE -> {
                repost(slot);
                if (ch.bulk.onDone(length)) {
                    inbound.add(LARGE_MARK);
                }
            }
            default -> ch.end.protocolError("frame type " + Frame.type(seg, off));
        }
    }

    private void repost(int slot) throws RdmaException {
        ch.res.postReceive(slot);
        ch.flow.onReposted();
    }

    /** Hands received frames to the pipeline in stream order while it reads; posts their buffers again. */
    void deliver() {
        if (delivering || inbound == null) {
            return;
        }
        delivering = true;
        RdmaChannelConfig config = ch.config();
        try {
            int delivered = 0;
            int max = Math.max(1, config.getMaxMessagesPerRead());
            while (!inbound.isEmpty() && ch.state == RdmaChannel.State.ACTIVE && (readPending || config.isAutoRead())) {
                int item = inbound.poll();
                if (item == LARGE_MARK) {
                    ch.pipeline().fireChannelRead(ch.bulk.takeReceived());
                } else if (Frame.type(ch.res.receives, ch.res.receiveOffset(item)) == Frame.FIN) {
                    repost(item);
                    inputShutdown = true;
                    delivered++;
                    break;
                } else {
                    ByteBuf b = copyOut(item);
                    repost(item);
                    ch.pipeline().fireChannelRead(b);
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
                ch.pipeline().fireChannelReadComplete();
            }
            if (inputShutdown && ch.state == RdmaChannel.State.ACTIVE) {
                inputShutdownReached();
            }
            ch.bulk.grantIfWaiting(); // waited for the pipeline to take the last transfer's buffer
        } catch (RdmaException | RuntimeException e) {
            ch.end.fail(e instanceof RdmaException r ? new IOException(r.getMessage(), r) : e);
        } finally {
            delivering = false;
        }
    }

    private void inputShutdownReached() {
        if (inputShutdownEventFired) {
            return;
        }
        inputShutdownEventFired = true;
        if (ch.config().isAllowHalfClosure()) {
            ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            ch.pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
        } else {
            ch.unsafe().close(ch.unsafe().voidPromise());
        }
    }

    /** The DATA payload of receive {@code slot}, copied into a buffer of the channel's allocator. */
    private ByteBuf copyOut(int slot) {
        ConnectionResources res = ch.res;
        long off = res.receiveOffset(slot);
        int length = Frame.length(res.receives, off);
        ByteBuf b = ch.config().getAllocator().directBuffer(length);
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

    /** At close: the frames not delivered are dropped (their buffers go with the connection's). */
    void release() {
        if (inbound != null) {
            inbound.clear();
        }
    }

    /** For {@link RdmaChannel#streamState()}. */
    String state() {
        return "inbound " + (inbound == null ? "-" : inbound.size()) + ", readPending " + readPending + ", receives "
                + receivesCompleted;
    }
}
