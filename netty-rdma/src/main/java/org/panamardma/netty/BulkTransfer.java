package org.panamardma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;

/**
 * An {@link RdmaChannel}'s large writes by RDMA WRITE, both ends. Sending: {@link Frame#RTS} with the length, and when
 * the peer's {@link Frame#CTS} comes, the WRITE into the buffer it granted (from the written buffer itself when it came
 * from this connection's registered pool, else from a registered copy) and {@link Frame#DONE}. Receiving: for an RTS,
 * a buffer of the pool registered {@code REMOTE_WRITE} for that one transfer and granted by CTS; at DONE (which RC
 * delivers after the WRITE's data is placed) the registration ends and the same buffer goes to the pipeline. One
 * transfer at a time each way: memory per connection stays at one granted transfer. Event loop only.
 */
final class BulkTransfer {
    private final RdmaChannel ch;

    // sending: the transfer being sent, its source (retained) and where its bytes are registered
    private ByteBuf largeSource;
    private MemoryRegion largeRegion;
    private long largeOffset;
    private int largeLength;
    private boolean awaitingCts;
    /** The send buffer set aside for the pending transfer's DONE (taken with its RTS). */
    private int largeDoneSlot = -1;

    // receiving: the transfer the peer asked for, the buffer granted to it, the ones the pipeline has not taken
    private int requestedTransfer;
    private SlabByteBuf grantTarget;
    private MemoryRegion grantRegion;
    private int grantLength;
    private boolean ctsPending;
    private ScheduledFuture<?> grantRetry;
    private final ArrayDeque<ByteBuf> received = new ArrayDeque<>(2);
    private long bulkTransfersReceived;

    BulkTransfer(RdmaChannel ch) {
        this.ch = ch;
    }

    boolean awaitingCts() {
        return awaitingCts;
    }

    boolean ctsPending() {
        return ctsPending;
    }

    int grantLength() {
        return grantLength;
    }

    long transfersReceived() {
        return bulkTransfersReceived;
    }

    // ------------------------------------------------------------------------------------------------ sending

    /** Starts a bulk transfer of the head of {@code buf}: RTS now, the WRITE and DONE when CTS comes. */
    boolean start(ChannelOutboundBuffer in, ByteBuf buf, int readable) throws RdmaException {
        SendPath send = ch.send;
        ConnectionResources res = ch.res;
        if (!ch.flow.canSend(1) || send.freeCount() < 2) {
            send.writeBlocked = true;
            return false;
        }
        int chunk = Math.min(readable, ch.peer.maxTransfer());
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
        int slot = send.takeSlot();
        largeDoneSlot = send.takeSlot();
        Frame.writeHeader(res.sends, res.sendOffset(slot), Frame.RTS, ch.flow.onSend(), chunk);
        ch.flow.reserve(1); // DONE's credit: the WRITE and DONE go out the moment CTS comes
        send.post(slot, Frame.HEADER);
        awaitingCts = true;
        return true;
    }

    /** The peer's CTS: WRITE into its grant, then DONE. */
    void onCts(int length, long address, int rkey) throws RdmaException {
        if (!awaitingCts || length != largeLength) {
            ch.end.protocolError("CTS for " + length + " bytes, none requested");
            return;
        }
        ConnectionResources res = ch.res;
        awaitingCts = false;
        // unsignaled: DONE's completion tells that the WRITE is done. Except where the device would still send the
        // WRITE's payload from its memory after that completion (siw's zero copy: Context.mustSignalToReuse), whose
        // buffer goes back there: signaled, its completion ignored unless in error
        int flags = res.qp.protectionDomain().context().mustSignalToReuse(largeLength)
                ? SendFlags.SIGNALED
                : SendFlags.NONE;
        res.qp.postWrite(WrIds.of(WrIds.WRITE, 0), largeRegion, largeOffset, largeLength, address, rkey, flags);
        int slot = largeDoneSlot;
        Frame.writeHeader(res.sends, res.sendOffset(slot), Frame.DONE, ch.flow.onReservedSend(), largeLength);
        ch.send.post(slot, Frame.HEADER);
        largeDoneSlot = -1;
        ch.send.hold(slot, largeSource); // released when DONE completes: the WRITE before it has then completed too
        largeSource = null;
        largeRegion = null;
        ch.send.writeBlocked = true; // resume the writes that waited behind the transfer
    }

    // ---------------------------------------------------------------------------------------------- receiving

    /** The peer's RTS: grant it a buffer now, or when the pipeline took the last transfer's. */
    void onRts(int length) throws RdmaException {
        if (requestedTransfer != 0 || grantTarget != null) {
            ch.end.protocolError("a second RTS before the first transfer was done");
            return;
        }
        requestedTransfer = length;
        grant();
    }

    /** The CTS frame's grant: the address and rkey of the buffer granted. */
    void writeGrant(MemorySegment sends, long base) {
        Frame.writeGrant(sends, base, grantRegion.address(), grantRegion.rkey());
    }

    void ctsSent() {
        ctsPending = false;
    }

    /** The peer's DONE: its WRITE's data is placed; the grant ends and the buffer waits for the pipeline. */
    boolean onDone(int length) {
        if (grantTarget == null || ctsPending || length != grantLength) {
            ch.end.protocolError("DONE for " + length + " bytes, no such transfer granted");
            return false;
        }
        grantRegion.close(); // the peer's right to this buffer ends here
        grantRegion = null;
        SlabByteBuf target = grantTarget;
        grantTarget = null;
        target.writerIndex(length);
        bulkTransfersReceived++;
        received.addLast(target);
        return true;
    }

    /** The oldest received transfer's buffer, for the pipeline. */
    ByteBuf takeReceived() {
        return received.pollFirst();
    }

    /** A request that waited for the pipeline to take the last transfer's buffer is granted now. */
    void grantIfWaiting() throws RdmaException {
        if (requestedTransfer != 0 && grantTarget == null && grantRetry == null) {
            grant();
        }
    }

    /** Grants the requested transfer a buffer of the pool, registered for the peer's WRITE of it alone. */
    private void grant() throws RdmaException {
        if (requestedTransfer == 0 || grantTarget != null || ch.state != RdmaChannel.State.ACTIVE) {
            return;
        }
        if (!received.isEmpty()) {
            return; // the pipeline has not taken the last one: memory per connection stays at one transfer
        }
        ConnectionResources res = ch.res;
        SlabByteBuf target = res.device.pool.allocate(requestedTransfer, requestedTransfer);
        if (target == null) {
            // the pool is at its limit: try again shortly (the peer's data waits, bounded by its own buffers)
            grantRetry = ch.eventLoop()
                    .schedule(
                            () -> {
                                grantRetry = null;
                                try {
                                    grant();
                                    ch.send.sendControl();
                                } catch (RdmaException | RuntimeException e) {
                                    ch.end.fail(new IOException(e.getMessage(), e));
                                }
                            },
                            5,
                            TimeUnit.MILLISECONDS);
            return;
        }
        try {
            grantRegion = res.device.pd.register(
                    target.chunk.asSlice(0, requestedTransfer), Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        } catch (RdmaException | RuntimeException e) {
            target.release();
            throw e;
        }
        grantTarget = target;
        grantLength = requestedTransfer;
        requestedTransfer = 0;
        ctsPending = true;
    }

    /** At close: the source not yet written, the grant and its registration, the transfers not delivered. */
    void release() {
        if (grantRetry != null) {
            grantRetry.cancel(false);
        }
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
        while ((b = received.pollFirst()) != null) {
            b.release();
        }
    }

    /** For {@link RdmaChannel#streamState()}. */
    String state() {
        return "awaitingCts " + awaitingCts + ", received transfers waiting " + received.size()
                + ", requestedTransfer " + requestedTransfer + ", granted " + (grantTarget != null)
                + ", ctsPending " + ctsPending;
    }
}
