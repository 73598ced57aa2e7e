package org.panamardma.netty;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.QueuePairOptions;

/**
 * The verbs objects of one RDMA channel: its CQ (on the event loop's completion channel for the device), its queue
 * pair (on the id, in the loop's protection domain), and its send and receive buffers: {@code sendDepth} and
 * {@code receiveDepth} slots of {@code bufferSize} bytes, registered {@code LOCAL_WRITE} only. The receives are
 * posted here, before connect or accept, so that the peer's first SEND finds one.
 */
final class ConnectionResources implements AutoCloseable {
    final DeviceResources device;
    final int receiveDepth;
    final int sendDepth;
    final int bufferSize;
    final CompletionQueue cq;
    final QueuePair qp;
    final MemoryRegion receiveRegion;
    final MemoryRegion sendRegion;
    final MemorySegment receives;
    final MemorySegment sends;
    /** A ByteBuffer view per slot, made once: copying from or into a foreign ByteBuf allocates nothing. */
    final ByteBuffer[] receiveViews;

    final ByteBuffer[] sendViews;

    private ConnectionResources(
            DeviceResources device,
            int receiveDepth,
            int sendDepth,
            int bufferSize,
            CompletionQueue cq,
            QueuePair qp,
            MemoryRegion receiveRegion,
            MemoryRegion sendRegion) {
        this.device = device;
        this.receiveDepth = receiveDepth;
        this.sendDepth = sendDepth;
        this.bufferSize = bufferSize;
        this.cq = cq;
        this.qp = qp;
        this.receiveRegion = receiveRegion;
        this.sendRegion = sendRegion;
        this.receives = receiveRegion.segment();
        this.sends = sendRegion.segment();
        this.receiveViews = new ByteBuffer[receiveDepth];
        this.sendViews = new ByteBuffer[sendDepth];
        for (int i = 0; i < receiveDepth; i++) {
            receiveViews[i] =
                    receives.asSlice((long) i * bufferSize, bufferSize).asByteBuffer();
        }
        for (int i = 0; i < sendDepth; i++) {
            sendViews[i] = sends.asSlice((long) i * bufferSize, bufferSize).asByteBuffer();
        }
    }

    /**
     * Makes everything on {@code id}'s device; the send queue holds the send slots' SENDs plus the one RDMA WRITE
     * and the one probe READ that may be outstanding besides.
     */
    static ConnectionResources create(DeviceResources device, CmId id, int receiveDepth, int sendDepth, int bufferSize)
            throws RdmaException {
        CompletionQueue cq = null;
        MemoryRegion recv = null;
        MemoryRegion send = null;
        try {
            int sqDepth = sendDepth + 2;
            cq = device.context.createCompletionQueue(receiveDepth + sqDepth, device.channel);
            recv = device.pd.allocate((long) receiveDepth * bufferSize, Set.of(Access.LOCAL_WRITE));
            send = device.pd.allocate((long) sendDepth * bufferSize, Set.of(Access.LOCAL_WRITE));
            QueuePair qp =
                    id.createQueuePair(device.pd, QueuePairOptions.of(cq).withQueueDepths(sqDepth, receiveDepth));
            ConnectionResources r =
                    new ConnectionResources(device, receiveDepth, sendDepth, bufferSize, cq, qp, recv, send);
            for (int i = 0; i < receiveDepth; i++) {
                r.postReceive(i);
            }
            return r;
        } catch (RdmaException | RuntimeException e) {
            for (AutoCloseable c : new AutoCloseable[] {send, recv, cq}) {
                closeQuietly(c);
            }
            throw e;
        }
    }

    void postReceive(int slot) throws RdmaException {
        qp.postReceive(WrIds.receive(slot), receiveRegion, (long) slot * bufferSize, bufferSize);
    }

    long receiveOffset(int slot) {
        return (long) slot * bufferSize;
    }

    long sendOffset(int slot) {
        return (long) slot * bufferSize;
    }

    /** Closes the CQ and buffers; the queue pair goes with its rdma_cm id (close that first). */
    @Override
    public void close() {
        closeQuietly(qp);
        closeQuietly(sendRegion);
        closeQuietly(receiveRegion);
        closeQuietly(cq);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // closing what failed half-made; the cause is already on its way
        }
    }
}
