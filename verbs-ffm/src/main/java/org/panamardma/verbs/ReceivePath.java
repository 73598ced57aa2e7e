package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.panamardma.verbs.CallGate.unscoped;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_recv_wr;
import org.panamardma.verbs.ffi.ibv_sge;

/**
 * How a {@link QueuePair}'s receives reach the provider ({@code ibv_post_recv}), beside its {@link SendPosting}:
 * validation, the QP's {@link CallGate} (shared with the sends, so that close never destroys the QP under a
 * receive), and the request structs in the QP's native scratch, built once so that posting allocates nothing. A
 * QP that receives from a shared receive queue refuses its own receives.
 */
final class ReceivePath {
    private final CallGate gate;
    private final MemorySegment qp;
    private final String description;
    private final boolean sharedReceiveQueue;
    private final int maxRecvWr;
    private final int maxRecvSge;
    /** Whether post_recv stays in user space on this provider (ProviderTraits): then its downcall is critical. */
    private final boolean criticalRecv;

    private final MemorySegment postRecvFn;
    private final MemorySegment recvWr;
    private final MemorySegment recvSge;
    private final MemorySegment badRecvWr;
    /**
     * {@link QueuePair#MAX_RECEIVE_BATCH} receive requests of one SGE each, linked in order ({@code next} of each is
     * the following one) once at creation, for {@link #postReceives}: a batch of n cuts the list after its n-th
     * element for the call and links it again after.
     */
    private final MemorySegment batchWrs;

    private final MemorySegment batchSges;

    /** The request structs come from {@code scratch}, the QP's, freed only after {@code gate} is closed. */
    ReceivePath(
            CallGate gate,
            MemorySegment qp,
            String description,
            boolean sharedReceiveQueue,
            int maxRecvWr,
            int maxRecvSge,
            Context ctx,
            Arena scratch) {
        this.gate = gate;
        this.qp = qp;
        this.description = description;
        this.sharedReceiveQueue = sharedReceiveQueue;
        this.maxRecvWr = maxRecvWr;
        this.maxRecvSge = maxRecvSge;
        this.criticalRecv = ctx.providerTraits.postRecvCritical();
        this.postRecvFn = ctx.postRecvFn;
        this.recvWr = unscoped(scratch.allocate(ibv_recv_wr.layout()));
        this.recvSge = unscoped(scratch.allocate(ibv_sge.layout().byteSize() * Math.max(1, maxRecvSge), 8));
        this.badRecvWr = unscoped(scratch.allocate(ADDRESS));
        recvWr.set(JAVA_LONG, ibv_recv_wr.next$OFFSET, 0L);
        recvWr.set(ADDRESS, ibv_recv_wr.sg_list$OFFSET, recvSge);
        long wrSize = ibv_recv_wr.layout().byteSize();
        long sgeSize = ibv_sge.layout().byteSize();
        int max = QueuePair.MAX_RECEIVE_BATCH;
        this.batchWrs = unscoped(scratch.allocate(ibv_recv_wr.layout(), max));
        this.batchSges = unscoped(scratch.allocate(ibv_sge.layout(), max));
        for (int i = 0; i < max; i++) {
            long wr = i * wrSize;
            batchWrs.set(JAVA_LONG, wr + ibv_recv_wr.next$OFFSET, i + 1 < max ? batchWrs.address() + wr + wrSize : 0L);
            batchWrs.set(JAVA_LONG, wr + ibv_recv_wr.sg_list$OFFSET, batchSges.address() + i * sgeSize);
            batchWrs.set(JAVA_INT, wr + ibv_recv_wr.num_sge$OFFSET, 1);
        }
    }

    /** The receive queue's depth the provider granted. */
    int maxRecvWr() {
        return maxRecvWr;
    }

    /** {@link QueuePair#postReceive(long, MemoryRegion, long, int)}. */
    void postReceive(long wrId, MemoryRegion mr, long offset, int length) throws RdmaException {
        // Checked without the region's monitor: a receive hands the provider only an address and the lkey, which
        // it stores without dereferencing; the kernel resolves the lkey when data arrives and refuses it once the
        // region is deregistered (the completion fails), so a region closed right after this check cannot crash.
        mr.checkRange(offset, Integer.toUnsignedLong(length));
        checkNoSharedReceiveQueue();
        gate.enterOrThrow(description);
        try {
            recvSge.set(JAVA_LONG, ibv_sge.addr$OFFSET, mr.address() + offset);
            recvSge.set(JAVA_INT, ibv_sge.length$OFFSET, length);
            recvSge.set(JAVA_INT, ibv_sge.lkey$OFFSET, mr.lkey());
            postRecvLocked(wrId, 1);
        } finally {
            gate.leave();
        }
    }

    /** {@link QueuePair#postReceive(long, ScatterGatherList)}. */
    void postReceive(long wrId, ScatterGatherList sgl) throws RdmaException {
        if (sgl.count() > maxRecvSge) {
            throw new IllegalArgumentException(sgl.count() + " SGEs exceed the receive queue's " + maxRecvSge);
        }
        checkNoSharedReceiveQueue();
        gate.enterOrThrow(description);
        try {
            sgl.checkRegionsOpen(); // lkeys only, as above: a region closed since add() is refused here
            MemorySegment.copy(sgl.array, 0, recvSge, 0, sgl.count() * ScatterGatherList.SGE_SIZE);
            postRecvLocked(wrId, sgl.count());
        } finally {
            gate.leave();
        }
    }

    /** {@link QueuePair#postReceives}: one ibv_post_recv of a list cut from the linked scratch requests. */
    void postReceives(long[] wrIds, MemoryRegion mr, long[] offsets, int length, int count) throws RdmaException {
        if (count < 1 || count > QueuePair.MAX_RECEIVE_BATCH || count > wrIds.length || count > offsets.length) {
            throw new IllegalArgumentException("a batch of " + count + " receives (at most "
                    + QueuePair.MAX_RECEIVE_BATCH
                    + ", and no more than the " + wrIds.length + " wr_ids and " + offsets.length + " offsets given)");
        }
        for (int i = 0; i < count; i++) {
            // lkeys only, as in postReceive: a region closed after this check cannot crash the provider
            mr.checkRange(offsets[i], Integer.toUnsignedLong(length));
        }
        long wrSize = ibv_recv_wr.layout().byteSize();
        long sgeSize = ibv_sge.layout().byteSize();
        long base = mr.address();
        int lkey = mr.lkey();
        checkNoSharedReceiveQueue();
        gate.enterOrThrow(description);
        try {
            for (int i = 0; i < count; i++) {
                batchWrs.set(JAVA_LONG, i * wrSize + ibv_recv_wr.wr_id$OFFSET, wrIds[i]);
                long sge = i * sgeSize;
                batchSges.set(JAVA_LONG, sge + ibv_sge.addr$OFFSET, base + offsets[i]);
                batchSges.set(JAVA_INT, sge + ibv_sge.length$OFFSET, length);
                batchSges.set(JAVA_INT, sge + ibv_sge.lkey$OFFSET, lkey);
            }
            long last = (count - 1) * wrSize + ibv_recv_wr.next$OFFSET;
            long after = batchWrs.get(JAVA_LONG, last);
            batchWrs.set(JAVA_LONG, last, 0L); // the list ends with this batch
            int rc;
            try {
                rc = postRecv(batchWrs);
            } finally {
                batchWrs.set(JAVA_LONG, last, after);
            }
            if (rc != 0) {
                long bad = badRecvWr.get(JAVA_LONG, 0);
                long index = (bad - batchWrs.address()) / wrSize;
                String posted = index >= 0 && index < count ? String.valueOf(index) : "an unknown number";
                throw SendPath.postFailure(
                        "ibv_post_recv (a batch of " + count + ": " + posted + " posted before the one refused)",
                        description,
                        rc,
                        maxRecvWr,
                        "receive");
            }
        } finally {
            gate.leave();
        }
    }

    private void checkNoSharedReceiveQueue() {
        if (sharedReceiveQueue) {
            throw new IllegalStateException(description + " receives from a shared receive queue: post there");
        }
    }

    /** ibv_post_recv of the list at {@code wrs}: critical where the provider's post_recv stays in user space. */
    private int postRecv(MemorySegment wrs) {
        try {
            // the QP and its scratch: kept alive by the CallGate around this call (VerbsOps: addresses as longs)
            return criticalRecv
                    ? (int) VerbsOps.POST_WR_CRITICAL.invokeExact(
                            postRecvFn, qp.address(), wrs.address(), badRecvWr.address())
                    : (int) VerbsOps.POST_WR.invokeExact(postRecvFn, qp.address(), wrs.address(), badRecvWr.address());
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
    }

    private void postRecvLocked(long wrId, int numSge) throws RdmaException {
        recvWr.set(JAVA_LONG, ibv_recv_wr.wr_id$OFFSET, wrId);
        recvWr.set(JAVA_INT, ibv_recv_wr.num_sge$OFFSET, numSge);
        int rc = postRecv(recvWr);
        if (rc != 0) {
            throw SendPath.postFailure("ibv_post_recv", description, rc, maxRecvWr, "receive");
        }
    }
}
