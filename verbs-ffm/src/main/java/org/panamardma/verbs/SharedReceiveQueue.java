package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_recv_wr;
import org.panamardma.verbs.ffi.ibv_sge;
import org.panamardma.verbs.ffi.ibv_srq;
import org.panamardma.verbs.ffi.ibv_srq_attr;
import org.panamardma.verbs.ffi.ibv_srq_init_attr;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * A shared receive queue: one pool of receives for many queue pairs (a server with many connections posts
 * buffers once, not per connection). Posting allocates nothing.
 *
 * <p>Verb of {@link #close()}: {@code ibv_destroy_srq}.
 */
@Verb("ibv_destroy_srq")
public final class SharedReceiveQueue extends NativeResource {
    final ProtectionDomain pd;
    final MemorySegment handle;
    private final int maxWr;
    private final Arena scratch = Arena.ofShared();
    private final MemorySegment recvWr;
    private final MemorySegment recvSge;
    private final MemorySegment badWr;
    private final MemorySegment postSrqRecvFn;

    private SharedReceiveQueue(ProtectionDomain pd, MemorySegment handle, int maxWr, int maxSge) {
        super("shared receive queue", pd);
        this.pd = pd;
        this.handle = handle;
        pd.context.track(handle, this);
        this.maxWr = maxWr;
        this.recvWr = scratch.allocate(ibv_recv_wr.layout());
        this.recvSge = scratch.allocate(ibv_sge.layout().byteSize() * maxSge, 8);
        this.badWr = scratch.allocate(ADDRESS);
        this.postSrqRecvFn = pd.context.postSrqRecvFn;
        recvWr.set(ADDRESS, ibv_recv_wr.sg_list$OFFSET, recvSge);
    }

    static SharedReceiveQueue create(ProtectionDomain pd, int maxWr, int maxSge) throws RdmaException {
        DeviceAttributes a = pd.context.attributes();
        if (a.maxSrq() == 0) {
            throw new UnsupportedOperationException(pd.context.deviceName() + " has no shared receive queues");
        }
        if (maxWr < 1 || maxWr > a.maxSrqWr() || maxSge < 1 || maxSge > a.maxSrqSge()) {
            throw new IllegalArgumentException("SRQ of " + maxWr + " requests x " + maxSge + " SGEs: "
                    + pd.context.deviceName() + " allows 1.." + a.maxSrqWr() + " x 1.." + a.maxSrqSge());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            MemorySegment attr = arena.allocate(ibv_srq_init_attr.layout());
            attr.set(JAVA_INT, ibv_srq_init_attr.attr$max_wr$OFFSET, maxWr);
            attr.set(JAVA_INT, ibv_srq_init_attr.attr$max_sge$OFFSET, maxSge);
            MemorySegment srq = verbs_h.ibv_create_srq(callState, pd.handle, attr);
            if (srq.address() == 0) {
                throw new RdmaException("ibv_create_srq(" + pd.context.deviceName() + ")", Native.errno(callState));
            }
            return new SharedReceiveQueue(
                    pd,
                    srq.reinterpret(ibv_srq.layout().byteSize()),
                    attr.get(JAVA_INT, ibv_srq_init_attr.attr$max_wr$OFFSET),
                    attr.get(JAVA_INT, ibv_srq_init_attr.attr$max_sge$OFFSET));
        }
    }

    /** {@return the most receives posted at once (the depth the provider granted)} */
    public int capacity() {
        return maxWr;
    }

    /**
     * Posts a receive of up to {@code length} bytes into {@code mr} at {@code offset}.
     *
     * <p>Verb: {@code ibv_post_srq_recv}.
     *
     * @param wrId   comes back in the receive's completion, on the CQ of the QP that took the message
     * @param mr     the region the message lands in (local write access)
     * @param offset where in {@code mr}, in bytes
     * @param length the largest message this receive takes
     * @throws RdmaException with {@code ibv_post_srq_recv}'s errno (ENOMEM: the SRQ is full)
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     */
    @Verb("ibv_post_srq_recv")
    public void postReceive(long wrId, MemoryRegion mr, long offset, int length) throws RdmaException {
        // without the region's monitor: the provider stores the address and lkey without reading the memory, and the
        // kernel refuses the lkey of a region deregistered after this check (see QueuePair.postReceive)
        mr.checkRange(offset, Integer.toUnsignedLong(length));
        synchronized (this) {
            checkOpen();
            recvSge.set(JAVA_LONG, ibv_sge.addr$OFFSET, mr.address() + offset);
            recvSge.set(JAVA_INT, ibv_sge.length$OFFSET, length);
            recvSge.set(JAVA_INT, ibv_sge.lkey$OFFSET, mr.lkey());
            recvWr.set(JAVA_LONG, ibv_recv_wr.wr_id$OFFSET, wrId);
            recvWr.set(JAVA_LONG, ibv_recv_wr.next$OFFSET, 0L);
            recvWr.set(JAVA_INT, ibv_recv_wr.num_sge$OFFSET, 1);
            int rc;
            try {
                // critical where the provider's receive posts stay in user space (ProviderTraits)
                rc = pd.context.providerTraits.postRecvCritical()
                        ? (int) VerbsOps.POST_WR_CRITICAL.invokeExact(
                                postSrqRecvFn, handle.address(), recvWr.address(), badWr.address())
                        : (int) VerbsOps.POST_WR.invokeExact(
                                postSrqRecvFn, handle.address(), recvWr.address(), badWr.address());
            } catch (Throwable t) {
                throw CompletionQueue.verbsError(t);
            }
            if (rc != 0) {
                throw new RdmaException(
                        "ibv_post_srq_recv on " + describe()
                                + (Math.abs(rc) == Errno.ENOMEM ? ": the SRQ is full (" + maxWr + ")" : ""),
                        rc);
            }
        }
    }

    /**
     * Arms the SRQ limit: an async event SRQ_LIMIT_REACHED fires when fewer than {@code limit} receives remain.
     *
     * <p>Verb: {@code ibv_modify_srq}.
     *
     * @param limit receives left at which the event fires, below the capacity; 0 disarms
     * @throws RdmaException with {@code ibv_modify_srq}'s errno (EINVAL for a limit above the capacity, or where the
     *                       device has no SRQ limit)
     */
    @Verb("ibv_modify_srq")
    public void armLimit(int limit) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_srq_attr.layout());
            attr.set(JAVA_INT, ibv_srq_attr.srq_limit$OFFSET, limit);
            int rc;
            synchronized (this) {
                checkOpen();
                rc = verbs_h.ibv_modify_srq(handle, attr, verbs_h.IBV_SRQ_LIMIT);
            }
            if (rc != 0) {
                throw new RdmaException("ibv_modify_srq(limit " + limit + ")", rc);
            }
        }
    }

    @Override
    protected void destroy() {
        pd.context.untrack(handle);
        try {
            int rc = verbs_h.ibv_destroy_srq(handle);
            if (rc != 0) {
                throw new IllegalStateException("ibv_destroy_srq failed: " + Errno.name(rc));
            }
        } finally {
            scratch.close();
        }
    }

    @Override
    protected String describe() {
        return "shared receive queue (" + maxWr + ") on " + pd.context.deviceName();
    }
}
