package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.List;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_qp_attr;
import org.panamardma.verbs.ffi.ibv_qp_cap;
import org.panamardma.verbs.ffi.ibv_qp_init_attr_ex;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * A created queue pair in INIT, not yet connected: it can take receives and tell its {@link #endpoint()}, but it
 * cannot send. {@link #connect(QueuePairEndpoint, ConnectOptions)} takes it through RTR and RTS and returns the
 * usable {@link QueuePair}; after that this object is spent.
 *
 * <p>Connecting by hand exchanges endpoints out of band and works on InfiniBand and RoCE. iWARP queue pairs
 * connect only through rdma_cm (the connection is a TCP stream).
 */
public final class PreparedQueuePair implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final QueuePair qp;
    private final QueuePairEndpoint endpoint;
    private final int gidIndex;
    private boolean spent;

    private PreparedQueuePair(QueuePair qp, QueuePairEndpoint endpoint, int gidIndex) {
        this.qp = qp;
        this.endpoint = endpoint;
        this.gidIndex = gidIndex;
    }

    static PreparedQueuePair create(QueuePairBuilder b) throws RdmaException {
        Context ctx = b.pd.context;
        DeviceAttributes attrs = ctx.attributes();
        if (b.maxSendWr > attrs.maxQpWr() || b.maxRecvWr > attrs.maxQpWr()) {
            throw new IllegalArgumentException(
                    "queue depth over " + ctx.deviceName() + "'s max_qp_wr " + attrs.maxQpWr());
        }
        if (b.maxSendSge > attrs.maxSge() || b.maxRecvSge > attrs.maxSge()) {
            throw new IllegalArgumentException("SGE count over " + ctx.deviceName() + "'s max_sge " + attrs.maxSge());
        }
        QueuePairCreation creation = createNative(b);
        QueuePair qp = new QueuePair(b.pd, b.sendCq, b.recvCq, b.srq, b.port, creation, null);
        try {
            toInit(qp, b.port);
            int gidIndex = b.gidIndex >= 0 ? b.gidIndex : defaultGidIndex(ctx, b.port);
            return new PreparedQueuePair(qp, endpointOf(qp, gidIndex), gidIndex);
        } catch (RdmaException | RuntimeException e) {
            qp.close();
            throw e;
        }
    }

    /**
     * The send operations to ask of an extended QP: everything the device can do and the installed rdma-core can
     * post (rdma-core 44's providers refuse IBV_QP_EX_WITH_FLUSH, and its ibv_qp_ex has no wr_flush).
     */
    static long wantedSendOps(DeviceAttributes attrs) {
        long ops = verbs_h.IBV_QP_EX_WITH_SEND
                | verbs_h.IBV_QP_EX_WITH_SEND_WITH_IMM
                | verbs_h.IBV_QP_EX_WITH_RDMA_WRITE
                | verbs_h.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM
                | verbs_h.IBV_QP_EX_WITH_RDMA_READ;
        if (attrs.supportsAtomics()) {
            ops |= verbs_h.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | verbs_h.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
        }
        if ((attrs.supportsFlushGlobal() || attrs.supportsFlushPersistent()) && RdmaCore.Feature.FLUSH.isAvailable()) {
            ops |= verbs_h.IBV_QP_EX_WITH_FLUSH;
        }
        if (attrs.supportsAtomicWrite() && RdmaCore.Feature.ATOMIC_WRITE.isAvailable()) {
            ops |= verbs_h.IBV_QP_EX_WITH_ATOMIC_WRITE;
        }
        if (attrs.supportsMemoryWindows()) {
            ops |= verbs_h.IBV_QP_EX_WITH_BIND_MW | verbs_h.IBV_QP_EX_WITH_LOCAL_INV;
        }
        return ops;
    }

    private static QueuePairCreation createNative(QueuePairBuilder b) throws RdmaException {
        Context ctx = b.pd.context;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            MemorySegment attr = arena.allocate(ibv_qp_init_attr_ex.layout());
            attr.set(ADDRESS, ibv_qp_init_attr_ex.send_cq$OFFSET, b.sendCq.handle);
            attr.set(ADDRESS, ibv_qp_init_attr_ex.recv_cq$OFFSET, b.recvCq.handle);
            attr.set(ADDRESS, ibv_qp_init_attr_ex.srq$OFFSET, b.srq == null ? MemorySegment.NULL : b.srq.handle);
            long cap = ibv_qp_init_attr_ex.cap$OFFSET;
            attr.set(JAVA_INT, cap + ibv_qp_cap.max_send_wr$OFFSET, b.maxSendWr);
            attr.set(JAVA_INT, cap + ibv_qp_cap.max_recv_wr$OFFSET, b.srq == null ? b.maxRecvWr : 0);
            attr.set(JAVA_INT, cap + ibv_qp_cap.max_send_sge$OFFSET, b.maxSendSge);
            attr.set(JAVA_INT, cap + ibv_qp_cap.max_recv_sge$OFFSET, b.srq == null ? b.maxRecvSge : 0);
            attr.set(JAVA_INT, cap + ibv_qp_cap.max_inline_data$OFFSET, b.maxInlineData);
            attr.set(JAVA_INT, ibv_qp_init_attr_ex.qp_type$OFFSET, verbs_h.IBV_QPT_RC);
            attr.set(JAVA_INT, ibv_qp_init_attr_ex.sq_sig_all$OFFSET, b.signalAll ? 1 : 0);
            attr.set(ADDRESS, ibv_qp_init_attr_ex.pd$OFFSET, b.pd.handle);

            MemorySegment qp = MemorySegment.NULL;
            boolean extended = false;
            long ops = 0;
            if (!b.legacySendPath && ctx.createQpExFn.address() != 0) {
                ops = wantedSendOps(ctx.attributes());
                attr.set(
                        JAVA_INT,
                        ibv_qp_init_attr_ex.comp_mask$OFFSET,
                        verbs_h.IBV_QP_INIT_ATTR_PD | verbs_h.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
                attr.set(JAVA_LONG, ibv_qp_init_attr_ex.send_ops_flags$OFFSET, ops);
                try {
                    qp = (MemorySegment)
                            VerbsOps.CREATE_QP_EX.invokeExact(ctx.createQpExFn, callState, ctx.handle, attr);
                } catch (Throwable t) {
                    throw CompletionQueue.verbsError(t);
                }
                int errno = Native.errno(callState);
                if (qp.address() == 0 && errno != Errno.EOPNOTSUPP) {
                    throw new RdmaException("ibv_create_qp_ex(" + ctx.deviceName() + ")", errno);
                }
                extended = qp.address() != 0;
            }
            if (!extended) {
                // the legacy ibv_qp_init_attr is the prefix of the _ex one; no comp_mask there
                attr.set(JAVA_INT, ibv_qp_init_attr_ex.comp_mask$OFFSET, 0);
                ops = 0;
                qp = verbs_h.ibv_create_qp(callState, b.pd.handle, attr);
                if (qp.address() == 0) {
                    throw new RdmaException("ibv_create_qp(" + ctx.deviceName() + ")", Native.errno(callState));
                }
            }
            // the provider writes back what it really granted
            return new QueuePairCreation(
                    qp,
                    extended,
                    ops,
                    attr.get(JAVA_INT, cap + ibv_qp_cap.max_send_wr$OFFSET),
                    attr.get(JAVA_INT, cap + ibv_qp_cap.max_recv_wr$OFFSET),
                    attr.get(JAVA_INT, cap + ibv_qp_cap.max_send_sge$OFFSET),
                    attr.get(JAVA_INT, cap + ibv_qp_cap.max_recv_sge$OFFSET),
                    attr.get(JAVA_INT, cap + ibv_qp_cap.max_inline_data$OFFSET),
                    b.workRequestsForEveryOpcode);
        }
    }

    /**
     * RESET -> INIT, allowing at the QP every remote access the device has: read, write, atomics, and FLUSH (a
     * responder checks FLUSH against the QP's access flags as well as the MR's; rxe_resp.c check_qp_attr_access).
     * The memory regions' access flags are the real gate.
     */
    static void toInit(QueuePair qp, int port) throws RdmaException {
        DeviceAttributes attrs = qp.pd.context.attributes();
        int access = verbs_h.IBV_ACCESS_LOCAL_WRITE
                | verbs_h.IBV_ACCESS_REMOTE_READ
                | verbs_h.IBV_ACCESS_REMOTE_WRITE
                | (attrs.supportsAtomics() ? verbs_h.IBV_ACCESS_REMOTE_ATOMIC : 0)
                | (attrs.supportsFlushGlobal() ? verbs_h.IBV_ACCESS_FLUSH_GLOBAL : 0)
                | (attrs.supportsFlushPersistent() ? verbs_h.IBV_ACCESS_FLUSH_PERSISTENT : 0);
        QueuePairAttributes.modify(
                qp.qp,
                qp.describe(),
                verbs_h.IBV_QPS_INIT,
                verbs_h.IBV_QP_STATE | verbs_h.IBV_QP_PKEY_INDEX | verbs_h.IBV_QP_PORT | verbs_h.IBV_QP_ACCESS_FLAGS,
                a -> {
                    a.set(JAVA_SHORT, ibv_qp_attr.pkey_index$OFFSET, (short) 0);
                    a.set(JAVA_BYTE, ibv_qp_attr.port_num$OFFSET, (byte) port);
                    a.set(JAVA_INT, ibv_qp_attr.qp_access_flags$OFFSET, access);
                });
    }

    static PreparedQueuePair rewrap(QueuePair qp) throws RdmaException {
        int gidIndex = defaultGidIndex(qp.pd.context, qp.port());
        return new PreparedQueuePair(qp, endpointOf(qp, gidIndex), gidIndex);
    }

    /** On RoCE the first RoCE v2 GID with an IPv4(-mapped) address, else the first RoCE v2 one, else index 0. */
    private static int defaultGidIndex(Context ctx, int port) throws RdmaException {
        if (ctx.transportType() != TransportType.INFINIBAND) {
            return 0;
        }
        List<GidEntry> table = ctx.gidTable(port);
        return table.stream()
                .filter(e -> e.type() == GidType.ROCE_V2 && e.gid().isIpv4Mapped())
                .findFirst()
                .or(() ->
                        table.stream().filter(e -> e.type() == GidType.ROCE_V2).findFirst())
                .map(GidEntry::index)
                .orElse(0);
    }

    private static QueuePairEndpoint endpointOf(QueuePair qp, int gidIndex) throws RdmaException {
        Context ctx = qp.pd.context;
        PortAttributes port = ctx.queryPort(qp.port());
        Gid gid = ctx.gidTable(qp.port()).stream()
                .filter(e -> e.index() == gidIndex)
                .map(GidEntry::gid)
                .findFirst()
                .orElse(Gid.ZERO);
        return new QueuePairEndpoint(
                qp.qpNumber(), RANDOM.nextInt(1 << 24), qp.port(), port.lid(), gid, port.activeMtu());
    }

    /** {@return what the peer needs to connect to this QP: its number, first PSN, port, LID, GID and MTU} */
    public QueuePairEndpoint endpoint() {
        return endpoint;
    }

    /** {@return the index of the GID table entry the queue pair's address uses} */
    public int gidIndex() {
        return gidIndex;
    }

    /**
     * Posts a receive before connecting (so that the peer's first SEND finds one).
     *
     * <p>Verb: {@code ibv_post_recv}.
     *
     * @param wrId   comes back in the receive's completion
     * @param mr     the region the message lands in (local write access)
     * @param offset where in {@code mr}, in bytes
     * @param length the largest message this receive takes
     * @throws RdmaException with {@code ibv_post_recv}'s errno (ENOMEM: the receive queue is full)
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     */
    @Verb("ibv_post_recv")
    public void postReceive(long wrId, MemoryRegion mr, long offset, int length) throws RdmaException {
        checkNotSpent();
        qp.postReceive(wrId, mr, offset, length);
    }

    /**
     * Connects to the peer's endpoint with {@link ConnectOptions#DEFAULTS}.
     *
     * <p>Verb: {@code ibv_modify_qp}.
     *
     * @param remote the peer's endpoint, as it sent it
     * @return the QP in RTS, ready to post
     * @throws RdmaException with {@code ibv_modify_qp}'s errno (EINVAL: an endpoint the port cannot reach)
     * @throws UnsupportedOperationException on iWARP (connect through rdma_cm)
     */
    @Verb("ibv_modify_qp")
    public QueuePair connect(QueuePairEndpoint remote) throws RdmaException {
        return connect(remote, ConnectOptions.DEFAULTS);
    }

    /**
     * INIT -> RTR (toward {@code remote}) -> RTS. The path MTU is the smaller of both ports' active MTUs.
     *
     * <p>Verb: {@code ibv_modify_qp}.
     *
     * @param remote  the peer's endpoint, as it sent it
     * @param options RDMA READ/atomic depths, timeouts, retries and GRH fields
     * @return the QP in RTS, ready to post
     * @throws UnsupportedOperationException on iWARP (connect through rdma_cm)
     * @throws RdmaException with {@code ibv_modify_qp}'s errno (EINVAL: an endpoint the port cannot reach, or depths
     *                       beyond the device's)
     */
    @Verb("ibv_modify_qp")
    public QueuePair connect(QueuePairEndpoint remote, ConnectOptions options) throws RdmaException {
        checkNotSpent();
        Context ctx = qp.pd.context;
        if (ctx.transportType() == TransportType.IWARP) {
            throw new UnsupportedOperationException(ctx.deviceName() + " is iWARP: its queue pairs connect only "
                    + "through rdma_cm (org.panamardma.verbs.cm), not by exchanging endpoints");
        }
        DeviceAttributes attrs = ctx.attributes();
        int responder = Math.min(options.responderResources(), attrs.maxQpRdAtomic());
        int initiator = Math.min(options.initiatorDepth(), attrs.maxQpInitRdAtomic());
        Mtu mtu = endpoint.mtu().bytes() <= remote.mtu().bytes() ? endpoint.mtu() : remote.mtu();
        boolean global = !remote.gid().isZero();
        synchronized (qp) {
            QueuePairAttributes.modify(
                    qp.qp,
                    qp.describe(),
                    verbs_h.IBV_QPS_RTR,
                    verbs_h.IBV_QP_STATE
                            | verbs_h.IBV_QP_AV
                            | verbs_h.IBV_QP_PATH_MTU
                            | verbs_h.IBV_QP_DEST_QPN
                            | verbs_h.IBV_QP_RQ_PSN
                            | verbs_h.IBV_QP_MAX_DEST_RD_ATOMIC
                            | verbs_h.IBV_QP_MIN_RNR_TIMER,
                    a -> {
                        a.set(JAVA_INT, ibv_qp_attr.path_mtu$OFFSET, mtu.value());
                        a.set(JAVA_INT, ibv_qp_attr.dest_qp_num$OFFSET, remote.qpNumber());
                        a.set(JAVA_INT, ibv_qp_attr.rq_psn$OFFSET, remote.psn());
                        a.set(JAVA_BYTE, ibv_qp_attr.max_dest_rd_atomic$OFFSET, (byte) responder);
                        a.set(JAVA_BYTE, ibv_qp_attr.min_rnr_timer$OFFSET, (byte) options.minRnrTimer());
                        a.set(JAVA_SHORT, ibv_qp_attr.ah_attr$dlid$OFFSET, (short) remote.lid());
                        a.set(JAVA_BYTE, ibv_qp_attr.ah_attr$sl$OFFSET, (byte) 0);
                        a.set(JAVA_BYTE, ibv_qp_attr.ah_attr$port_num$OFFSET, (byte) qp.port());
                        if (global) {
                            a.set(JAVA_BYTE, ibv_qp_attr.ah_attr$is_global$OFFSET, (byte) 1);
                            remote.gid().write(a, ibv_qp_attr.ah_attr$grh$dgid$OFFSET);
                            a.set(JAVA_BYTE, ibv_qp_attr.ah_attr$grh$sgid_index$OFFSET, (byte) gidIndex);
                            a.set(JAVA_BYTE, ibv_qp_attr.ah_attr$grh$hop_limit$OFFSET, (byte) options.hopLimit());
                            a.set(JAVA_BYTE, ibv_qp_attr.ah_attr$grh$traffic_class$OFFSET, (byte)
                                    options.trafficClass());
                        }
                    });
            QueuePairAttributes.modify(
                    qp.qp,
                    qp.describe(),
                    verbs_h.IBV_QPS_RTS,
                    verbs_h.IBV_QP_STATE
                            | verbs_h.IBV_QP_TIMEOUT
                            | verbs_h.IBV_QP_RETRY_CNT
                            | verbs_h.IBV_QP_RNR_RETRY
                            | verbs_h.IBV_QP_SQ_PSN
                            | verbs_h.IBV_QP_MAX_QP_RD_ATOMIC,
                    a -> {
                        a.set(JAVA_BYTE, ibv_qp_attr.timeout$OFFSET, (byte) options.timeout());
                        a.set(JAVA_BYTE, ibv_qp_attr.retry_cnt$OFFSET, (byte) options.retryCount());
                        a.set(JAVA_BYTE, ibv_qp_attr.rnr_retry$OFFSET, (byte) options.rnrRetry());
                        a.set(JAVA_INT, ibv_qp_attr.sq_psn$OFFSET, endpoint.psn());
                        a.set(JAVA_BYTE, ibv_qp_attr.max_rd_atomic$OFFSET, (byte) initiator);
                    });
            qp.markConnected();
        }
        spent = true;
        return qp;
    }

    private void checkNotSpent() {
        if (spent) {
            throw new IllegalStateException(
                    "this prepared queue pair was connected; use the QueuePair connect() " + "returned");
        }
    }

    /**
     * For device tests only (package-private): moves the QP to ERR and lets it post. A post there still goes the
     * whole way through the provider (which copies inline data and writes the work request; the kernel flushes it),
     * so tests can race posts against closes on both transports without a connection per race (an iWARP QP
     * connects only through rdma_cm).
     */
    QueuePair inErrorStateForTest() throws RdmaException {
        checkNotSpent();
        spent = true;
        synchronized (qp) {
            QueuePairAttributes.modify(qp.qp, qp.describe(), verbs_h.IBV_QPS_ERR, verbs_h.IBV_QP_STATE, null);
            qp.markConnected();
        }
        return qp;
    }

    /**
     * Destroys the queue pair (also after connect: the QueuePair is the same native object).
     *
     * <p>Verb: {@code ibv_destroy_qp}.
     */
    @Verb("ibv_destroy_qp")
    @Override
    public void close() {
        qp.close();
    }

    @Override
    public String toString() {
        return "prepared " + qp + ", endpoint " + endpoint;
    }
}
