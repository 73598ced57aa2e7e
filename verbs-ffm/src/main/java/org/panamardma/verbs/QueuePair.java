package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.SendPath.Op;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_mw_bind_info;
import org.panamardma.verbs.ffi.ibv_qp;
import org.panamardma.verbs.ffi.ibv_qp_attr;
import org.panamardma.verbs.ffi.ibv_qp_init_attr;
import org.panamardma.verbs.ffi.ibv_recv_wr;
import org.panamardma.verbs.ffi.ibv_send_wr;
import org.panamardma.verbs.ffi.ibv_sge;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * A connected reliable-connected queue pair: every send opcode, and receives. Obtained only from
 * {@link PreparedQueuePair#connect} (or rdma_cm), so an unconnected QP cannot post sends — the type says so.
 *
 * <p><b>Send paths.</b> Where the device offers the extended QP API ({@code ibv_qp_ex}, rxe) the QP is created with
 * it, the only way to FLUSH and ATOMIC WRITE ({@code ibv_wr_flush}, {@code ibv_wr_atomic_write}); every other
 * request is posted with {@code ibv_post_send} on any QP, one call where the {@code ibv_wr_*} verbs take four
 * (libibverbs lets the two interleave outside each other's {@code ibv_wr_start}/{@code ibv_wr_complete} region,
 * ibv_wr_post(3), and this class never lets them overlap). Where the device has no extended QP (siw), FLUSH and
 * ATOMIC WRITE are refused. The backends are {@link LegacySendPath} and {@link ExtendedSendPath}; this class
 * validates, serializes and decides.
 * An opcode the device cannot do is refused before posting with {@link UnsupportedOperationException} naming the device and the
 * missing capability; one the installed rdma-core lacks (FLUSH before rdma-core 45: {@link RdmaCore.Feature}) is
 * refused first, naming the feature and both releases. The provider's {@code struct ibv_qp_ex} is read through a view
 * of the installed release's size, so a member that release lacks is never read.
 *
 * <p><b>Data path.</b> Every post validates its arguments (ranges inside the memory region, alignment of atomics)
 * before touching the queue, then makes one call (three for FLUSH and ATOMIC WRITE) through cached function pointers
 * into native scratch owned by the QP. Nothing is allocated. Posts and receives pass the QP's {@link CallGate}, one
 * at a time, which also keeps {@link #close()} from destroying the QP under a post; post from several threads if you
 * like, but one thread per QP is fastest.
 *
 * <p><b>Completions</b> arrive on the CQs with the {@code wrId} given; only {@link SendFlags#SIGNALED} requests (or
 * all, with {@link QueuePairBuilder#signalAll}) complete when successful. Post flags are those of {@link SendFlags}.
 *
 * <p>Verbs of {@link #close()}: {@code ibv_destroy_qp}, {@code rdma_destroy_qp}.
 */
@Verb("ibv_destroy_qp")
@Verb("rdma_destroy_qp")
public final class QueuePair extends NativeResource {
    final ProtectionDomain pd;
    final MemorySegment qp;
    private final int qpNumber;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final SharedReceiveQueue srq;
    private final String deviceName;
    private final int port;

    // capabilities, decided at creation
    private final boolean extended;
    private final boolean atomics;
    private final boolean immediateData;
    private final boolean flush;
    private final boolean atomicWrite;
    private final boolean memoryWindows;
    private final int maxSendSge;
    private final int maxRecvSge;
    private final int maxInlineData;
    private final int maxSendWr;
    private final int maxRecvWr;

    /** ibv_wr_* on an extended QP (FLUSH, ATOMIC WRITE), else null. */
    private final ExtendedSendPath extendedPath;
    /** How SEND, WRITE, READ and the atomics reach the provider: ibv_post_send, or ibv_wr_* where asked for tests. */
    private final SendPath sendPath;
    /** Admits the posts and receives one at a time, and none after close (instead of this object's monitor). */
    private final CallGate gate = new CallGate();
    /** Whether post_recv stays in user space on this provider (ProviderTraits): then its downcall is critical. */
    private final boolean criticalRecv;
    /**
     * Where an extended QP's provider builds gathered requests wrong (RdmaCore.Quirk.RXE_WR_SET_SGE_LIST_LENGTH) and
     * {@link #sendPath} is the ibv_wr_* one: the ibv_post_send path, for lists of more than one element; else null.
     */
    private final SendPath listPath;

    /** The most receives {@link #postReceives} posts in one call. */
    public static final int MAX_RECEIVE_BATCH = 64;

    // receives, and the scratch of both send paths: native memory owned by the QP
    private final Arena scratch = Arena.ofShared();
    private final MemorySegment postRecvFn;
    private final MemorySegment recvWr;
    private final MemorySegment recvSge;
    private final MemorySegment badRecvWr;
    /**
     * {@link #MAX_RECEIVE_BATCH} receive requests of one SGE each, linked in order ({@code next} of each is the
     * following one) once at creation, for {@link #postReceives}: a batch of n cuts the list after its n-th element
     * for the call and links it again after.
     */
    private final MemorySegment batchWrs;
    private final MemorySegment batchSges;
    /**
     * Where inline bytes are copied before the provider reads them. The provider copies inline data during the post
     * call from whatever address it is given; if that were the caller's memory, another thread closing the memory
     * region or the arena of that memory could free it under the provider (a JVM crash). This scratch is the QP's
     * own and is freed only by {@link #destroy()}, after the {@link CallGate} every post passes is closed.
     */
    private final MemorySegment inlineBuf;

    private final Runnable destroyHook;
    private volatile boolean connected;

    /**
     * What creation decided; the constructor only reads it. {@code workRequestsForEveryOpcode}: on an extended QP,
     * post every opcode with the ibv_wr_* verbs (the path before issue 26), for tests and the benchmark.
     */
    record Creation(MemorySegment qp, boolean extended, long sendOpsFlags, int maxSendWr, int maxRecvWr,
                    int maxSendSge, int maxRecvSge, int maxInlineData, boolean workRequestsForEveryOpcode) {
        Creation(MemorySegment qp, boolean extended, long sendOpsFlags, int maxSendWr, int maxRecvWr, int maxSendSge,
                 int maxRecvSge, int maxInlineData) {
            this(qp, extended, sendOpsFlags, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, false);
        }
    }

    QueuePair(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq, int port,
              Creation c, Runnable destroyHook) {
        super("queue pair", dependencies(pd, sendCq, recvCq, srq));
        this.pd = pd;
        this.qp = c.qp().reinterpret(ibv_qp.layout().byteSize());
        this.qpNumber = qp.get(JAVA_INT, ibv_qp.qp_num$OFFSET);
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.port = port;
        this.destroyHook = destroyHook;
        Context ctx = pd.context;
        ctx.track(qp, this);
        this.deviceName = ctx.deviceName();
        this.maxSendWr = c.maxSendWr();
        this.maxRecvWr = c.maxRecvWr();
        this.maxSendSge = c.maxSendSge();
        this.maxRecvSge = c.maxRecvSge();
        this.maxInlineData = c.maxInlineData();
        this.extended = c.extended();
        DeviceAttributes attrs = ctx.attributes();
        long ops = c.sendOpsFlags();
        // iWARP (RFC 5040 RDMAP) has no immediate data; InfiniBand transport (incl. RoCE) has.
        this.immediateData = ctx.transportType() != TransportType.IWARP;
        this.inlineBuf = unscoped(scratch.allocate(Math.max(8, maxInlineData), 8));
        String description = describe();
        ProviderTraits traits = ctx.providerTraits;
        this.criticalRecv = traits.postRecvCritical();
        long sgeArray = ibv_sge.layout().byteSize() * Math.max(1, maxSendSge);
        LegacySendPath postSend = new LegacySendPath(ctx.postSendFn, qp, description, maxSendWr, inlineBuf,
                unscoped(scratch.allocate(ibv_send_wr.layout())), unscoped(scratch.allocate(sgeArray, 8)),
                unscoped(scratch.allocate(ADDRESS)),
                unscoped(scratch.allocate(ibv_send_wr.layout(), SendChain.MAX_REQUESTS)),
                unscoped(scratch.allocate(ibv_sge.layout(), SendChain.MAX_REQUESTS)), traits.postSendCritical());
        if (extended) {
            // the provider's ibv_qp_ex as the installed rdma-core has it: 352 bytes in 44 (no wr_flush), 360 from 45
            this.extendedPath = new ExtendedSendPath(RdmaCore.qpExView(verbs_h.ibv_qp_to_qp_ex(qp)), ops,
                    attrs.supportsAtomics(), description, maxSendWr, inlineBuf, unscoped(scratch.allocate(JAVA_LONG)),
                    unscoped(scratch.allocate(sgeArray, 8)), unscoped(scratch.allocate(ibv_mw_bind_info.layout())),
                    traits.postSendCritical());
            // binds and local invalidates take the same path as every other request: ibv_post_send carries
            // IBV_WR_BIND_MW and IBV_WR_LOCAL_INV on a QP made by ibv_create_qp_ex as well (rxe's post_send and
            // the wr_* functions fill one send queue; rdma-core providers/rxe/rxe.c validate_send_wr, convert_send_wr)
            this.sendPath = c.workRequestsForEveryOpcode() ? extendedPath : postSend;
            // gathers avoid rxe's ibv_wr_set_sge_list where ibv_wr_* posts them: the one ibv_post_send path takes
            // them (its remembered fields stay its own; the gate serializes both paths' posts)
            this.listPath = sendPath == extendedPath && RdmaCore.Quirk.RXE_WR_SET_SGE_LIST_LENGTH.affects(ctx)
                    ? postSend : null;
            // the provider was asked for the atomics' and windows' IBV_QP_EX_WITH_* flags at creation: as granted there
            this.atomics = extendedPath.atomics();
            this.flush = extendedPath.flush();
            this.atomicWrite = extendedPath.atomicWrite();
            this.memoryWindows = attrs.supportsMemoryWindows() && extendedPath.memoryWindows();
        } else {
            this.extendedPath = null;
            this.sendPath = postSend;
            this.listPath = null;
            this.atomics = attrs.supportsAtomics();
            this.flush = false;
            this.atomicWrite = false;
            // IBV_WR_BIND_MW and IBV_WR_LOCAL_INV through ibv_post_send: where the device has windows at all (siw,
            // the one device without the extended API here, has none and refuses both opcodes)
            this.memoryWindows = attrs.supportsMemoryWindows();
        }
        this.postRecvFn = ctx.postRecvFn;
        this.recvWr = unscoped(scratch.allocate(ibv_recv_wr.layout()));
        this.recvSge = unscoped(scratch.allocate(ibv_sge.layout().byteSize() * Math.max(1, maxRecvSge), 8));
        this.badRecvWr = unscoped(scratch.allocate(ADDRESS));
        recvWr.set(JAVA_LONG, ibv_recv_wr.next$OFFSET, 0L);
        recvWr.set(ADDRESS, ibv_recv_wr.sg_list$OFFSET, recvSge);
        long wrSize = ibv_recv_wr.layout().byteSize();
        long sgeSize = ibv_sge.layout().byteSize();
        this.batchWrs = unscoped(scratch.allocate(ibv_recv_wr.layout(), MAX_RECEIVE_BATCH));
        this.batchSges = unscoped(scratch.allocate(ibv_sge.layout(), MAX_RECEIVE_BATCH));
        for (int i = 0; i < MAX_RECEIVE_BATCH; i++) {
            long wr = i * wrSize;
            batchWrs.set(JAVA_LONG, wr + ibv_recv_wr.next$OFFSET,
                    i + 1 < MAX_RECEIVE_BATCH ? batchWrs.address() + wr + wrSize : 0L);
            batchWrs.set(JAVA_LONG, wr + ibv_recv_wr.sg_list$OFFSET, batchSges.address() + i * sgeSize);
            batchWrs.set(JAVA_INT, wr + ibv_recv_wr.num_sge$OFFSET, 1);
        }
    }

    private static NativeResource[] dependencies(ProtectionDomain pd, CompletionQueue s, CompletionQueue r,
                                                 SharedReceiveQueue srq) {
        java.util.List<NativeResource> deps = new java.util.ArrayList<>(java.util.List.of(pd, s));
        if (r != s) {
            deps.add(r);
        }
        if (srq != null) {
            deps.add(srq);
        }
        return deps.toArray(NativeResource[]::new);
    }

    /**
     * A view of the QP's scratch memory {@code s} in the global scope, for the data path. Why: a segment of a shared
     * arena handed to a downcall is acquired and released around the call (two compare-and-swaps on the arena's
     * counter: 2.6 ns more per call on the host, benchmarks/README.md "The binding's own cost on the host CPU"),
     * which guards against a concurrent close of the arena. Here the QP's {@link CallGate} already does: the scratch is used
     * only by a call the gate admitted, and it is freed only by {@link #destroy()}, after the gate is closed, so no
     * call can be in progress or start on freed scratch. (Reads and writes through the view skip the arena's
     * liveness check for the same reason.)
     */
    private static MemorySegment unscoped(MemorySegment s) {
        return MemorySegment.ofAddress(s.address()).reinterpret(s.byteSize());
    }

    /** The size of the view of the provider's ibv_qp_ex (0 on the legacy path): for tests. */
    long extendedQpViewSize() {
        return extendedPath == null ? 0 : extendedPath.viewSize();
    }

    void markConnected() {
        connected = true;
    }

    // ---------------------------------------------------------------------------------------------------- info

    /** The QP number the device gave it ({@code qp_num}): what the peer names as its destination QP. */
    public int qpNumber() {
        return qpNumber;
    }

    /** The name of the device the QP is on ({@code mlx5_0}, {@code rxe0}...). */
    public String deviceName() {
        return deviceName;
    }

    /** The device port the QP uses (numbered from 1). */
    public int port() {
        return port;
    }

    /** The CQ its send requests complete on. */
    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    /** The CQ its receives complete on. */
    public CompletionQueue receiveCompletionQueue() {
        return recvCq;
    }

    /** The protection domain it was created in: the regions it posts must be registered there. */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * Whether the QP was created with the extended API ({@code ibv_qp_ex}), which FLUSH and ATOMIC WRITE are posted
     * with ({@code ibv_wr_*}); other requests go through {@code ibv_post_send} either way.
     */
    public boolean usesExtendedSendPath() {
        return extended;
    }

    /**
     * Whether {@link #postCompareSwap} and {@link #postFetchAdd} can post: on the extended path, as the provider
     * granted at creation; otherwise as the device's attributes say.
     */
    public boolean supportsAtomics() {
        return atomics;
    }

    /** Whether SEND and WRITE with immediate data can post: not on iWARP, which has no immediate data. */
    public boolean supportsImmediateData() {
        return immediateData;
    }

    /**
     * Whether {@link #postFlush} can post: the installed rdma-core has it ({@link RdmaCore.Feature#FLUSH}, 45 and
     * later), the device has it, and the provider granted {@code IBV_QP_EX_WITH_FLUSH} at creation.
     */
    public boolean supportsFlush() {
        return flush;
    }

    /** Whether {@link #postAtomicWrite} can post: library ({@link RdmaCore.Feature#ATOMIC_WRITE}), device, provider. */
    public boolean supportsAtomicWrite() {
        return atomicWrite;
    }

    /**
     * Whether {@link #postBindMemoryWindow} and {@link #postInvalidate} can post: the device has type 2 windows
     * ({@link DeviceAttributes#supportsMemoryWindows()}) and, on the extended path, the provider granted
     * {@code IBV_QP_EX_WITH_BIND_MW} and {@code IBV_QP_EX_WITH_LOCAL_INV}.
     */
    public boolean supportsMemoryWindows() {
        return memoryWindows;
    }

    /** The largest inline payload the provider granted ({@link #postSendInline}, {@link #postWriteInline}). */
    public int maxInlineData() {
        return maxInlineData;
    }

    /** The send queue's depth the provider granted: at most this many send requests outstanding. */
    public int sendQueueDepth() {
        return maxSendWr;
    }

    /** The receive queue's depth the provider granted: at most this many receives posted. */
    public int receiveQueueDepth() {
        return maxRecvWr;
    }

    /**
     * The QP's current state, as the device reports it (ERR after a failed request: see {@link #reset()}).
     *
     * <p>Verb: {@code ibv_query_qp}.
     */
    @Verb("ibv_query_qp")
    public QpState state() throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
            int rc;
            synchronized (this) {
                checkOpen();
                rc = verbs_h.ibv_query_qp(qp, attr, verbs_h.IBV_QP_STATE, init);
            }
            if (rc != 0) {
                throw new RdmaException("ibv_query_qp(" + describe() + ")", rc);
            }
            return QpState.of(attr.get(JAVA_INT, ibv_qp_attr.qp_state$OFFSET));
        }
    }

    /**
     * Recovers from the error state: moves the QP to RESET and INIT (outstanding requests are flushed) and returns
     * it as a prepared QP with a new PSN, to be connected again — the peer must reconnect too. This object is no
     * longer usable for posting until then.
     *
     * <p>Verb: {@code ibv_modify_qp}.
     */
    @Verb("ibv_modify_qp")
    public PreparedQueuePair reset() throws RdmaException {
        synchronized (this) {
            checkOpen();
            enter(); // no post or receive in progress while the queues are reset
            try {
                connected = false;
                modify(verbs_h.IBV_QPS_RESET, verbs_h.IBV_QP_STATE, null);
                PreparedQueuePair.toInit(this, port);
            } finally {
                gate.leave();
            }
        }
        return PreparedQueuePair.rewrap(this);
    }

    /** ibv_modify_qp with the given state and mask; {@code fill} sets the other attributes. */
    void modify(int state, int mask, java.util.function.Consumer<MemorySegment> fill) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            attr.set(JAVA_INT, ibv_qp_attr.qp_state$OFFSET, state);
            if (fill != null) {
                fill.accept(attr);
            }
            int rc = verbs_h.ibv_modify_qp(qp, attr, mask);
            if (rc != 0) {
                throw new RdmaException("ibv_modify_qp(" + describe() + " to " + QpState.of(state) + ")", rc);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ receives

    /**
     * Posts a receive of up to {@code length} bytes into {@code mr} at {@code offset}.
     *
     * <p>Verb: {@code ibv_post_recv}.
     */
    @Verb("ibv_post_recv")
    public void postReceive(long wrId, MemoryRegion mr, long offset, int length) throws RdmaException {
        // Checked without the region's monitor: a receive hands the provider only an address and the lkey, which
        // it stores without dereferencing; the kernel resolves the lkey when data arrives and refuses it once the
        // region is deregistered (the completion fails), so a region closed right after this check cannot crash.
        mr.checkRange(offset, Integer.toUnsignedLong(length));
        checkNoSharedReceiveQueue();
        enter();
        try {
            recvSge.set(JAVA_LONG, ibv_sge.addr$OFFSET, mr.address() + offset);
            recvSge.set(JAVA_INT, ibv_sge.length$OFFSET, length);
            recvSge.set(JAVA_INT, ibv_sge.lkey$OFFSET, mr.lkey());
            postRecvLocked(wrId, 1);
        } finally {
            gate.leave();
        }
    }

    /**
     * Posts a receive scattering into the elements of {@code sgl}.
     *
     * <p>Verb: {@code ibv_post_recv}.
     */
    @Verb("ibv_post_recv")
    public void postReceive(long wrId, ScatterGatherList sgl) throws RdmaException {
        if (sgl.count() > maxRecvSge) {
            throw new IllegalArgumentException(sgl.count() + " SGEs exceed the receive queue's " + maxRecvSge);
        }
        checkNoSharedReceiveQueue();
        enter();
        try {
            sgl.checkRegionsOpen(); // lkeys only, as above: a region closed since add() is refused here
            MemorySegment.copy(sgl.array, 0, recvSge, 0, sgl.count() * ScatterGatherList.SGE_SIZE);
            postRecvLocked(wrId, sgl.count());
        } finally {
            gate.leave();
        }
    }

    /**
     * Posts {@code count} receives of up to {@code length} bytes each into {@code mr}, the i-th at
     * {@code offsets[i]} with {@code wrIds[i]}, in one {@code ibv_post_recv} call (a linked list of requests):
     * one call into the provider, one doorbell, where {@link #postReceive(long, MemoryRegion, long, int)} makes one
     * per receive. Allocation-free: the arrays are the caller's, the request list is the QP's scratch. At most
     * {@value #MAX_RECEIVE_BATCH} per call.
     *
     * <p>Verb: {@code ibv_post_recv}.
     *
     * @throws IllegalArgumentException if {@code count} is not in [1, {@value #MAX_RECEIVE_BATCH}] or exceeds an array
     * @throws IndexOutOfBoundsException if a receive lies outside {@code mr} (checked before anything is posted)
     * @throws RdmaException if the provider refused a request (the message says how many of the batch, in order,
     *     were posted before it: ibv_post_recv posts the requests ahead of the one it returns as bad)
     */
    @Verb("ibv_post_recv")
    public void postReceives(long[] wrIds, MemoryRegion mr, long[] offsets, int length, int count)
            throws RdmaException {
        if (count < 1 || count > MAX_RECEIVE_BATCH || count > wrIds.length || count > offsets.length) {
            throw new IllegalArgumentException("a batch of " + count + " receives (at most " + MAX_RECEIVE_BATCH
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
        enter();
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
                throw SendPath.postFailure("ibv_post_recv (a batch of " + count + ": " + posted
                        + " posted before the one refused)", describe(), rc, maxRecvWr, "receive");
            }
        } finally {
            gate.leave();
        }
    }

    private void checkNoSharedReceiveQueue() {
        if (srq != null) {
            throw new IllegalStateException(describe() + " receives from a shared receive queue: post there");
        }
    }

    /**
     * Passes the {@link CallGate} (waiting for a post of another thread), or throws {@link IllegalStateException}
     * if the QP is closed or closing. Every call must be followed by {@code gate.leave()} in a finally.
     */
    private void enter() {
        if (!gate.enter()) {
            throw new IllegalStateException(describe() + " is closed");
        }
    }

    /** Inside the gate: the QP must be connected (a reset one is not, until connected again). */
    private void checkConnected() {
        if (!connected) {
            throw new IllegalStateException(describe() + " is not connected (reset and not reconnected)");
        }
    }

    /** ibv_post_recv of the list at {@code wrs}: critical where the provider's post_recv stays in user space. */
    private int postRecv(MemorySegment wrs) {
        try {
            // the QP and its scratch: kept alive by the CallGate around this call (VerbsOps: addresses as longs)
            return criticalRecv
                    ? (int) VerbsOps.POST_WR_CRITICAL.invokeExact(postRecvFn, qp.address(), wrs.address(),
                            badRecvWr.address())
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
            throw SendPath.postFailure("ibv_post_recv", describe(), rc, maxRecvWr, "receive");
        }
    }

    // --------------------------------------------------------------------------------------------------- sends

    /**
     * SEND of {@code length} bytes of {@code mr} at {@code offset}.
     *
     * <p>Verbs: {@code ibv_wr_send}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_send")
    @Verb("ibv_post_send")
    public void postSend(long wrId, MemoryRegion mr, long offset, int length, int flags) throws RdmaException {
        postOne(Op.SEND, wrId, mr, offset, length, 0L, 0, 0, 0L, 0L, flags);
    }

    /**
     * SEND with 32-bit immediate data (host byte order; the receiver sees it in its completion).
     *
     * <p>Verbs: {@code ibv_wr_send_imm}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_send_imm")
    @Verb("ibv_post_send")
    public void postSendWithImmediate(long wrId, MemoryRegion mr, long offset, int length, int immediate, int flags)
            throws RdmaException {
        postOne(Op.SEND_WITH_IMM, wrId, mr, offset, length, 0L, 0, immediate, 0L, 0L, flags);
    }

    /**
     * SEND gathering the elements of {@code sgl}.
     *
     * <p>Verbs: {@code ibv_wr_send}, {@code ibv_wr_set_sge_list}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_send")
    @Verb("ibv_wr_set_sge_list")
    @Verb("ibv_post_send")
    public void postSend(long wrId, ScatterGatherList sgl, int flags) throws RdmaException {
        postList(Op.SEND, wrId, sgl, 0L, 0, 0, flags);
    }

    /**
     * SEND of bytes copied into the request ({@link SendFlags#INLINE} is implied): {@code data} may be any native
     * segment, registered or not, and is reusable when this returns. At most {@link #maxInlineData()} bytes.
     *
     * <p>Verbs: {@code ibv_wr_send}, {@code ibv_wr_set_inline_data}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_send")
    @Verb("ibv_wr_set_inline_data")
    @Verb("ibv_post_send")
    public void postSendInline(long wrId, MemorySegment data, int flags) throws RdmaException {
        postInline(Op.SEND, wrId, data, 0L, 0, flags);
    }

    /**
     * RDMA WRITE of {@code length} bytes of {@code mr} at {@code offset} to the peer's {@code remoteAddress}.
     *
     * <p>Verbs: {@code ibv_wr_rdma_write}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_rdma_write")
    @Verb("ibv_post_send")
    public void postWrite(long wrId, MemoryRegion mr, long offset, int length, long remoteAddress, int rkey, int flags)
            throws RdmaException {
        postOne(Op.WRITE, wrId, mr, offset, length, remoteAddress, rkey, 0, 0L, 0L, flags);
    }

    /**
     * RDMA WRITE gathering the elements of {@code sgl}.
     *
     * <p>Verbs: {@code ibv_wr_rdma_write}, {@code ibv_wr_set_sge_list}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_rdma_write")
    @Verb("ibv_wr_set_sge_list")
    @Verb("ibv_post_send")
    public void postWrite(long wrId, ScatterGatherList sgl, long remoteAddress, int rkey, int flags)
            throws RdmaException {
        postList(Op.WRITE, wrId, sgl, remoteAddress, rkey, 0, flags);
    }

    /**
     * RDMA WRITE of inline data (see {@link #postSendInline}).
     *
     * <p>Verbs: {@code ibv_wr_rdma_write}, {@code ibv_wr_set_inline_data}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_rdma_write")
    @Verb("ibv_wr_set_inline_data")
    @Verb("ibv_post_send")
    public void postWriteInline(long wrId, MemorySegment data, long remoteAddress, int rkey, int flags)
            throws RdmaException {
        postInline(Op.WRITE, wrId, data, remoteAddress, rkey, flags);
    }

    /**
     * RDMA WRITE with immediate data: also consumes a receive at the peer, which completes with the value.
     *
     * <p>Verbs: {@code ibv_wr_rdma_write_imm}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_rdma_write_imm")
    @Verb("ibv_post_send")
    public void postWriteWithImmediate(long wrId, MemoryRegion mr, long offset, int length, long remoteAddress,
                                       int rkey, int immediate, int flags) throws RdmaException {
        postOne(Op.WRITE_WITH_IMM, wrId, mr, offset, length, remoteAddress, rkey, immediate, 0L, 0L, flags);
    }

    /**
     * RDMA READ of {@code length} bytes at the peer's {@code remoteAddress} into {@code mr} at {@code offset}.
     *
     * <p>Verbs: {@code ibv_wr_rdma_read}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_rdma_read")
    @Verb("ibv_post_send")
    public void postRead(long wrId, MemoryRegion mr, long offset, int length, long remoteAddress, int rkey, int flags)
            throws RdmaException {
        postOne(Op.READ, wrId, mr, offset, length, remoteAddress, rkey, 0, 0L, 0L, flags);
    }

    /**
     * ATOMIC FETCH AND ADD (RFC 7306 section 5... as in InfiniBand): adds {@code add} to the 64-bit word at the
     * peer's 8-byte aligned {@code remoteAddress}; the word's previous value lands in {@code result} at
     * {@code offset} (8 bytes, host byte order).
     *
     * <p>Verbs: {@code ibv_wr_atomic_fetch_add}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_atomic_fetch_add")
    @Verb("ibv_post_send")
    public void postFetchAdd(long wrId, MemoryRegion result, long offset, long remoteAddress, int rkey, long add,
                             int flags) throws RdmaException {
        postOne(Op.FETCH_ADD, wrId, result, offset, 8, remoteAddress, rkey, 0, add, 0L, flags);
    }

    /**
     * ATOMIC COMPARE AND SWAP: if the 64-bit word at the peer's 8-byte aligned {@code remoteAddress} equals
     * {@code compare}, it becomes {@code swap}; its previous value lands in {@code result} at {@code offset}.
     *
     * <p>Verbs: {@code ibv_wr_atomic_cmp_swp}, {@code ibv_post_send}.
     */
    @Verb("ibv_wr_atomic_cmp_swp")
    @Verb("ibv_post_send")
    public void postCompareSwap(long wrId, MemoryRegion result, long offset, long remoteAddress, int rkey,
                                long compare, long swap, int flags) throws RdmaException {
        postOne(Op.COMPARE_SWAP, wrId, result, offset, 8, remoteAddress, rkey, 0, compare, swap, flags);
    }

    /**
     * RDMA FLUSH (draft-talpey-rdma-commit section 4.1): makes data previously written to the peer's memory
     * globally visible or persistent. With {@link FlushScope#MEMORY_REGION} the whole region of {@code rkey} is
     * flushed. The peer's region must grant {@link FlushType#requiredAccess()}, else the request completes with
     * {@link WcStatus#REM_ACCESS_ERR}.
     *
     * <p>Verb: {@code ibv_wr_flush}.
     *
     * @throws UnsupportedOperationException where the installed rdma-core is older than 45 (checked first: the message
     *                                       names both releases and {@code ibv_wr_flush}), or the device cannot FLUSH
     */
    @Verb("ibv_wr_flush")
    public void postFlush(long wrId, long remoteAddress, int rkey, long length, FlushType type, FlushScope scope,
                          int flags) throws RdmaException {
        if (!flush) {
            RdmaCore.Feature.FLUSH.require(); // the library first: rdma-core 44 has no ibv_wr_flush
            throw unsupported("RDMA FLUSH", "FLUSH (device_cap_flags_ex IB_UVERBS_DEVICE_FLUSH_GLOBAL/PERSISTENT "
                    + "and IBV_QP_EX_WITH_FLUSH of the extended QP API)");
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative FLUSH length " + length);
        }
        checkFlags(flags);
        enter();
        try {
            checkConnected();
            extendedPath.postFlush(wrId, flags, remoteAddress, rkey, length, (byte) type.value, (byte) scope.value);
        } finally {
            gate.leave();
        }
    }

    /**
     * RDMA ATOMIC WRITE (draft-talpey-rdma-commit section 4.2): writes the 64-bit {@code value} (host byte order)
     * to the peer's 8-byte aligned {@code remoteAddress} as one indivisible store.
     *
     * <p>Verb: {@code ibv_wr_atomic_write}.
     */
    @Verb("ibv_wr_atomic_write")
    public void postAtomicWrite(long wrId, long remoteAddress, int rkey, long value, int flags) throws RdmaException {
        if (!atomicWrite) {
            RdmaCore.Feature.ATOMIC_WRITE.require();
            throw unsupported("RDMA ATOMIC WRITE", "ATOMIC WRITE (device_cap_flags_ex IB_UVERBS_DEVICE_ATOMIC_WRITE "
                    + "and IBV_QP_EX_WITH_ATOMIC_WRITE of the extended QP API)");
        }
        checkAligned(remoteAddress, "ATOMIC WRITE");
        checkFlags(flags);
        enter();
        try {
            checkConnected();
            extendedPath.postAtomicWrite(wrId, flags, remoteAddress, rkey, value);
        } finally {
            gate.leave();
        }
    }

    /**
     * Binds the type 2 window {@code mw} to {@code length} bytes of {@code mr} at {@code offset} under the key
     * {@code newRkey} ({@code IBV_WR_BIND_MW}; {@code ibv_wr_bind_mw} on the extended path): from when the request
     * executes, the peer of this queue pair (and only it) may access that range with {@code access}, addressing
     * it by its virtual address and {@code newRkey}, until the window is invalidated ({@link #postInvalidate}, or
     * the peer's Send With Invalidate) or closed. Requests posted after the bind on this queue pair execute after
     * it. The window's {@link MemoryWindow#rkey()} is {@code newRkey} when this returns.
     *
     * <p>Verbs: {@code ibv_wr_bind_mw}, {@code ibv_post_send}.
     *
     * @param newRkey the window's next key, usually {@link MemoryWindow#nextRkey()} (only the low byte may change)
     * @param access  a non-empty subset of {@link Access#REMOTE_READ}, {@link Access#REMOTE_WRITE},
     *                {@link Access#REMOTE_ATOMIC}
     * @throws UnsupportedOperationException if the queue pair cannot bind windows ({@link #supportsMemoryWindows()})
     * @throws IllegalArgumentException if window or region is of another protection domain, the region lacks
     *         {@link Access#MW_BIND} (C10-73) or, for remote write or atomic rights, {@link Access#LOCAL_WRITE}
     *         (C10-74), the range is empty or outside the region, {@code access} is not remote rights only, or the key
     *         is not one of the window's
     * @throws IllegalStateException if the window is bound already (o10-37.2.30), or anything is closed
     */
    @Verb("ibv_wr_bind_mw")
    @Verb("ibv_post_send")
    public void postBindMemoryWindow(long wrId, MemoryWindow mw, int newRkey, MemoryRegion mr, long offset, long length,
                                     java.util.Set<Access> access, int flags) throws RdmaException {
        if (!memoryWindows) {
            throw unsupported("memory windows", "type 2 memory windows (device_cap_flags IBV_DEVICE_MEM_WINDOW_TYPE_2A/2B"
                    + (extended ? " and IBV_QP_EX_WITH_BIND_MW/_LOCAL_INV of the extended QP API)" : ")"));
        }
        checkFlags(flags);
        if ((flags & SendFlags.INLINE) != 0) {
            throw new IllegalArgumentException("INLINE applies to SEND and RDMA WRITE, not to a window bind");
        }
        if (mw.protectionDomain() != pd || mr.protectionDomain() != pd) {
            throw new IllegalArgumentException("window, region and queue pair must share one protection domain "
                    + "(InfiniBand C10-72)");
        }
        if (access.isEmpty() || !java.util.EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC)
                .containsAll(access)) {
            throw new IllegalArgumentException("a window grants remote rights only (REMOTE_READ, REMOTE_WRITE, "
                    + "REMOTE_ATOMIC), not " + access);
        }
        if (!mr.access().contains(Access.MW_BIND)) {
            throw new IllegalArgumentException("windows bind only to a region registered with MW_BIND (C10-73): "
                    + mr.access());
        }
        if ((access.contains(Access.REMOTE_WRITE) || access.contains(Access.REMOTE_ATOMIC))
                && !mr.access().contains(Access.LOCAL_WRITE)) {
            throw new IllegalArgumentException("a writable window needs a region with LOCAL_WRITE (C10-74)");
        }
        if (length <= 0) {
            throw new IllegalArgumentException("a window binds a non-empty range (o10-37.2.40), not " + length
                    + " bytes");
        }
        int bits = Access.bits(access);
        enter();
        try {
            checkConnected();
            // the provider reads both structs during the call: hold them open (order: the QP's gate, window, region)
            synchronized (mw) {
                mw.checkBindable(newRkey);
                synchronized (mr) {
                    mr.checkRange(offset, length);
                    sendPath.postBindWindow(wrId, flags, mw.handle, newRkey, mr.handle, mr.address() + offset, length,
                            bits);
                }
                mw.bound(newRkey);
            }
        } finally {
            gate.leave();
        }
    }

    /**
     * Invalidates the bound window {@code mw} ({@code IBV_WR_LOCAL_INV} of its current key; {@code ibv_wr_local_inv}):
     * once the request completes, the peer's accesses with that key fail. Post it on the queue pair the window was
     * bound through.
     *
     * <p>Verbs: {@code ibv_wr_local_inv}, {@code ibv_post_send}.
     *
     * @throws IllegalStateException if the window is not bound ({@link MemoryWindow#isBound()}), or is closed
     */
    @Verb("ibv_wr_local_inv")
    @Verb("ibv_post_send")
    public void postInvalidate(long wrId, MemoryWindow mw, int flags) throws RdmaException {
        if (!memoryWindows) {
            throw unsupported("memory window invalidation", "type 2 memory windows");
        }
        checkFlags(flags);
        if ((flags & SendFlags.INLINE) != 0) {
            throw new IllegalArgumentException("INLINE applies to SEND and RDMA WRITE, not to an invalidation");
        }
        enter();
        try {
            checkConnected();
            synchronized (mw) {
                mw.checkInvalidatable();
                sendPath.postLocalInvalidate(wrId, flags, mw.rkey());
                mw.invalidated();
            }
        } finally {
            gate.leave();
        }
    }

    /**
     * Posts the requests of {@code chain}, in order, in one post: one {@code ibv_post_send} of a linked list of
     * requests (one {@code ibv_wr_start} ... {@code ibv_wr_complete} region where every opcode goes through the
     * {@code ibv_wr_*} verbs), hence one call into the provider and one doorbell where posting them one by one makes
     * one each. The chain is copied: it may be cleared and reused when this returns. Allocation-free.
     *
     * <p>Verb: {@code ibv_post_send}.
     *
     * @throws IllegalArgumentException if the chain is empty or longer than the send queue
     * @throws UnsupportedOperationException if a request's opcode is one the QP cannot post (immediate data on iWARP)
     * @throws IllegalStateException if the QP or a region of the chain is closed, or the QP is not connected
     * @throws ChainPostException if the provider refused a request: which one, and that those before it were posted
     *     and none after it
     */
    @Verb("ibv_post_send")
    public void postChain(SendChain chain) throws RdmaException {
        int n = chain.count;
        if (n == 0) {
            throw new IllegalArgumentException("an empty chain: nothing to post");
        }
        if (n > maxSendWr) {
            throw new IllegalArgumentException("a chain of " + n + " requests exceeds " + describe()
                    + "'s send queue of " + maxSendWr + ": post it in parts");
        }
        for (int i = 0; i < n; i++) {
            checkOp(chain.ops[i]);
        }
        enter();
        try {
            checkConnected();
            // lkeys only, as in postReceive: a region closed after this check cannot crash the provider
            for (int i = 0; i < n; i++) {
                chain.regions[i].checkOpen();
            }
            sendPath.postChain(chain, n);
        } finally {
            gate.leave();
        }
    }

    // ------------------------------------------------------------------------------------------ implementation

    private void checkOp(Op op) {
        if (op.atomic() && !atomics) {
            throw unsupported(op == Op.FETCH_ADD ? "ATOMIC FETCH AND ADD" : "ATOMIC COMPARE AND SWAP",
                    "atomics (atomic_cap is " + pd.context.attributes().atomicCapability() + ")");
        }
        if (op.immediate() && !immediateData) {
            throw unsupported(op == Op.SEND_WITH_IMM ? "SEND with immediate data" : "RDMA WRITE with immediate data",
                    "immediate data (the iWARP transport has none)");
        }
    }

    private UnsupportedOperationException unsupported(String what, String capability) {
        return new UnsupportedOperationException(what + " is not supported by " + deviceName + ": it lacks "
                + capability);
    }

    private static void checkFlags(int flags) {
        if ((flags & ~SendFlags.ALL) != 0) {
            throw new IllegalArgumentException("unknown send flags 0x" + Integer.toHexString(flags & ~SendFlags.ALL));
        }
    }

    private static void checkAligned(long remoteAddress, String what) {
        if ((remoteAddress & 7) != 0) {
            throw new IllegalArgumentException(what + " needs an 8-byte aligned remote address, got 0x"
                    + Long.toHexString(remoteAddress));
        }
    }

    private void postOne(Op op, long wrId, MemoryRegion mr, long offset, int length, long remoteAddress, int rkey,
                         int immediate, long compareAdd, long swap, int flags) throws RdmaException {
        checkOp(op);
        checkFlags(flags);
        mr.checkRange(offset, Integer.toUnsignedLong(length));
        if (op.atomic()) {
            checkAligned(remoteAddress, op == Op.FETCH_ADD ? "FETCH AND ADD" : "COMPARE AND SWAP");
            if (((mr.address() + offset) & 7) != 0) {
                throw new IllegalArgumentException("the result buffer of an atomic must be 8-byte aligned");
            }
        }
        boolean inline = (flags & SendFlags.INLINE) != 0;
        if (inline) {
            checkInline(op, length);
        }
        long addr = mr.address() + offset;
        int lkey = mr.lkey();
        enter();
        try {
            checkConnected();
            if (inline) {
                // The provider reads inline bytes during the call. The region was open at checkRange, but another
                // thread may close it (or the arena of the memory it covers) now and free that memory. So copy the
                // bytes into the QP's scratch: MemorySegment.copy checks the source's arena is alive and a
                // concurrent close of a shared arena cannot free it in mid-copy (the FFM runtime's handshake), so
                // this either throws IllegalStateException or has the bytes. The lkey is not used for inline data.
                MemorySegment.copy(mr.segment(), offset, inlineBuf, 0, length);
                sendPath.postInlineScratch(op, wrId, flags, remoteAddress, rkey, immediate, length);
            } else {
                sendPath.post(op, wrId, flags, remoteAddress, rkey, immediate, compareAdd, swap, addr, length, lkey);
            }
        } finally {
            gate.leave();
        }
    }

    private void postList(Op op, long wrId, ScatterGatherList sgl, long remoteAddress, int rkey, int immediate,
                          int flags) throws RdmaException {
        checkOp(op);
        checkFlags(flags);
        if (sgl.count() == 0 || sgl.count() > maxSendSge) {
            throw new IllegalArgumentException(sgl.count() + " SGEs: the send queue takes 1.." + maxSendSge);
        }
        if ((flags & SendFlags.INLINE) != 0) {
            checkInline(op, sgl.totalLength());
            postListInline(op, wrId, sgl, remoteAddress, rkey, immediate, flags);
            return;
        }
        enter();
        try {
            checkConnected();
            // the list holds raw addresses and lkeys: refuse a region closed since add() (see postReceive for why
            // a close after this check is harmless without inline data)
            sgl.checkRegionsOpen();
            (listPath != null && sgl.count() > 1 ? listPath : sendPath)
                    .postList(op, wrId, flags, remoteAddress, rkey, immediate, sgl.array, sgl.count());
        } finally {
            gate.leave();
        }
    }

    /**
     * An inline post of a list: the elements' bytes are gathered into the QP's scratch (as in postOne, so that a
     * concurrent close of a region or of its memory's arena cannot free what the provider reads) and posted as one
     * inline element; the request carries the same bytes.
     */
    private void postListInline(Op op, long wrId, ScatterGatherList sgl, long remoteAddress, int rkey,
                                int immediate, int flags) throws RdmaException {
        enter();
        try {
            checkConnected();
            sgl.checkRegionsOpen();
            long length = 0;
            for (int i = 0; i < sgl.count(); i++) {
                int n = sgl.length(i);
                MemorySegment.copy(sgl.regions[i].segment(), sgl.offsets[i], inlineBuf, length, n);
                length += n;
            }
            sendPath.postInlineScratch(op, wrId, flags, remoteAddress, rkey, immediate, length);
        } finally {
            gate.leave();
        }
    }

    /** Inline data is what a SEND or WRITE carries; it fits the QP's inline scratch. */
    private void checkInline(Op op, long length) {
        if (op == Op.READ || op.atomic()) {
            throw new IllegalArgumentException("INLINE applies to SEND and RDMA WRITE, not to " + op);
        }
        if (length > maxInlineData) {
            throw new IllegalArgumentException("inline " + op + " of " + length + " bytes exceeds the QP's "
                    + maxInlineData + " (QueuePairBuilder.maxInlineData)");
        }
    }

    private void postInline(Op op, long wrId, MemorySegment data, long remoteAddress, int rkey, int flags)
            throws RdmaException {
        checkFlags(flags);
        if (!data.isNative()) {
            throw new IllegalArgumentException("inline data must be a native segment");
        }
        if (data.byteSize() > maxInlineData) {
            throw new IllegalArgumentException("inline data of " + data.byteSize() + " bytes exceeds the QP's "
                    + maxInlineData + " (QueuePairBuilder.maxInlineData)");
        }
        flags |= SendFlags.INLINE;
        enter();
        try {
            checkConnected();
            sendPath.postInlineData(op, wrId, flags, remoteAddress, rkey, data);
        } finally {
            gate.leave();
        }
    }

    @Override
    protected void destroy() {
        // no post or receive in progress, and none after this: then the QP and its scratch can go
        if (!gate.close(CallGate.CLOSE_TIMEOUT_NANOS)) {
            throw new IllegalStateException(describe() + ": a post did not return within "
                    + CallGate.CLOSE_TIMEOUT_NANOS / 1_000_000_000 + " s; the QP and its memory are left allocated "
                    + "rather than freed under it");
        }
        pd.context.untrack(qp);
        try {
            if (destroyHook != null) {
                destroyHook.run();
            } else {
                int rc = verbs_h.ibv_destroy_qp(qp);
                if (rc != 0) {
                    throw new IllegalStateException("ibv_destroy_qp failed: " + Errno.name(rc));
                }
            }
        } finally {
            scratch.close();
        }
    }

    @Override
    protected String describe() {
        return "queue pair " + qpNumber + " on " + deviceName;
    }
}
