package org.panamardma.verbs;

import static org.panamardma.verbs.CallGate.unscoped;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.SendPath.Op;

/**
 * How a {@link QueuePair}'s send requests are posted, beside its {@link ReceivePath}: which {@link SendPath} a
 * request takes ({@link LegacySendPath}, {@link ExtendedSendPath} where the device offers the extended QP API: the
 * {@link SendPaths} chosen at creation), the capabilities decided at creation (an opcode the device cannot do is refused before posting, naming the device and
 * the missing capability), argument validation, and the QP's {@link CallGate}, shared with the receives, that keeps
 * close from destroying the QP under a post. The inline scratch is the QP's own (see {@link #inlineBuf}).
 *
 * <p>Where the device offers the extended QP API ({@code ibv_qp_ex}, rxe) the QP is created with it, the only way to
 * FLUSH and ATOMIC WRITE ({@code ibv_wr_flush}, {@code ibv_wr_atomic_write}); every other request is posted with
 * {@code ibv_post_send} on any QP, one call where the {@code ibv_wr_*} verbs take four (libibverbs lets the two
 * interleave outside each other's {@code ibv_wr_start}/{@code ibv_wr_complete} region, ibv_wr_post(3), and the gate
 * never lets them overlap). Where the device has no extended QP (siw), FLUSH and ATOMIC WRITE are refused. An
 * opcode the installed rdma-core lacks (FLUSH before rdma-core 45: {@link RdmaCore.Feature}) is refused first,
 * naming the feature and both releases. The provider's {@code struct ibv_qp_ex} is read through a view of the
 * installed release's size, so a member that release lacks is never read.
 */
final class SendPosting {
    private final ProtectionDomain pd;
    private final CallGate gate;
    private final String description;
    private final String deviceName;
    // capabilities, decided at creation
    private final boolean extended;
    private final boolean atomics;
    private final boolean immediateData;
    private final boolean flush;
    private final boolean atomicWrite;
    private final boolean memoryWindows;
    private final int maxSendSge;
    private final int maxInlineData;
    private final int maxSendWr;
    /** ibv_wr_* on an extended QP (FLUSH, ATOMIC WRITE), else null. */
    private final ExtendedSendPath extendedPath;
    /** How SEND, WRITE, READ and the atomics reach the provider: ibv_post_send, or ibv_wr_* where asked for tests. */
    private final SendPath sendPath;
    /**
     * Where an extended QP's provider builds gathered requests wrong (RdmaCore.Quirk.RXE_WR_SET_SGE_LIST_LENGTH) and
     * {@link #sendPath} is the ibv_wr_* one: the ibv_post_send path, for lists of more than one element; else null.
     */
    private final SendPath listPath;
    /**
     * Where inline bytes are copied before the provider reads them. The provider copies inline data during the post
     * call from whatever address it is given; if that were the caller's memory, another thread closing the memory
     * region or the arena of that memory could free it under the provider (a JVM crash). This scratch is the QP's
     * own and is freed only by its destroy(), after the {@link CallGate} every post passes is closed.
     */
    private final MemorySegment inlineBuf;

    private volatile boolean connected;

    /** Decides the paths and capabilities of the QP {@code qp} that {@code c} describes. */
    SendPosting(
            ProtectionDomain pd,
            CallGate gate,
            MemorySegment qp,
            String description,
            QueuePairCreation c,
            Arena scratch) {
        this.pd = pd;
        this.gate = gate;
        this.description = description;
        Context ctx = pd.context;
        this.deviceName = ctx.deviceName();
        this.maxSendWr = c.maxSendWr();
        this.maxSendSge = c.maxSendSge();
        this.maxInlineData = c.maxInlineData();
        this.extended = c.extended();
        // iWARP (RFC 5040 RDMAP) has no immediate data; InfiniBand transport (incl. RoCE) has.
        this.immediateData = ctx.transportType() != TransportType.IWARP;
        this.inlineBuf = unscoped(scratch.allocate(Math.max(8, maxInlineData), 8));
        SendPaths paths = SendPaths.build(ctx, qp, description, c, inlineBuf, scratch);
        this.extendedPath = paths.extendedPath();
        this.sendPath = paths.sendPath();
        this.listPath = paths.listPath();
        this.atomics = paths.atomics();
        this.flush = paths.flush();
        this.atomicWrite = paths.atomicWrite();
        this.memoryWindows = paths.memoryWindows();
    }

    void markConnected() {
        connected = true;
    }

    /** Inside the gate (a reset holds it): sends refused until the QP is connected again. */
    void markReset() {
        connected = false;
    }

    /** The size of the view of the provider's ibv_qp_ex (0 on the legacy path): for tests. */
    long extendedQpViewSize() {
        return extendedPath == null ? 0 : extendedPath.viewSize();
    }

    boolean extended() {
        return extended;
    }

    boolean atomics() {
        return atomics;
    }

    boolean immediateData() {
        return immediateData;
    }

    boolean flush() {
        return flush;
    }

    boolean atomicWrite() {
        return atomicWrite;
    }

    boolean memoryWindows() {
        return memoryWindows;
    }

    int maxInlineData() {
        return maxInlineData;
    }

    int maxSendWr() {
        return maxSendWr;
    }

    /** Inside the gate: the QP must be connected (a reset one is not, until connected again). */
    private void checkConnected() {
        if (!connected) {
            throw new IllegalStateException(description + " is not connected (reset and not reconnected)");
        }
    }

    /** {@link QueuePair#postFlush}. */
    void postFlush(long wrId, long remoteAddress, int rkey, long length, FlushType type, FlushScope scope, int flags)
            throws RdmaException {
        if (!flush) {
            RdmaCore.Feature.FLUSH.require(); // the library first: rdma-core 44 has no ibv_wr_flush
            throw unsupported(
                    "RDMA FLUSH",
                    "FLUSH (device_cap_flags_ex IB_UVERBS_DEVICE_FLUSH_GLOBAL/PERSISTENT "
                            + "and IBV_QP_EX_WITH_FLUSH of the extended QP API)");
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative FLUSH length " + length);
        }
        checkFlags(flags);
        gate.enterOrThrow(description);
        try {
            checkConnected();
            extendedPath.postFlush(wrId, flags, remoteAddress, rkey, length, (byte) type.value, (byte) scope.value);
        } finally {
            gate.leave();
        }
    }

    /** {@link QueuePair#postAtomicWrite}. */
    void postAtomicWrite(long wrId, long remoteAddress, int rkey, long value, int flags) throws RdmaException {
        if (!atomicWrite) {
            RdmaCore.Feature.ATOMIC_WRITE.require();
            throw unsupported(
                    "RDMA ATOMIC WRITE",
                    "ATOMIC WRITE (device_cap_flags_ex IB_UVERBS_DEVICE_ATOMIC_WRITE "
                            + "and IBV_QP_EX_WITH_ATOMIC_WRITE of the extended QP API)");
        }
        checkAligned(remoteAddress, "ATOMIC WRITE");
        checkFlags(flags);
        gate.enterOrThrow(description);
        try {
            checkConnected();
            extendedPath.postAtomicWrite(wrId, flags, remoteAddress, rkey, value);
        } finally {
            gate.leave();
        }
    }

    /** {@link QueuePair#postBindMemoryWindow}. */
    void postBindMemoryWindow(
            long wrId,
            MemoryWindow mw,
            int newRkey,
            MemoryRegion mr,
            long offset,
            long length,
            java.util.Set<Access> access,
            int flags)
            throws RdmaException {
        if (!memoryWindows) {
            throw unsupported(
                    "memory windows",
                    "type 2 memory windows (device_cap_flags IBV_DEVICE_MEM_WINDOW_TYPE_2A/2B"
                            + (extended ? " and IBV_QP_EX_WITH_BIND_MW/_LOCAL_INV of the extended QP API)" : ")"));
        }
        checkFlags(flags);
        if ((flags & SendFlags.INLINE) != 0) {
            throw new IllegalArgumentException("INLINE applies to SEND and RDMA WRITE, not to a window bind");
        }
        if (mw.protectionDomain() != pd || mr.protectionDomain() != pd) {
            throw new IllegalArgumentException(
                    "window, region and queue pair must share one protection domain " + "(InfiniBand C10-72)");
        }
        if (access.isEmpty()
                || !java.util.EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC)
                        .containsAll(access)) {
            throw new IllegalArgumentException("a window grants remote rights only (REMOTE_READ, REMOTE_WRITE, "
                    + "REMOTE_ATOMIC), not " + access);
        }
        if (!mr.access().contains(Access.MW_BIND)) {
            throw new IllegalArgumentException(
                    "windows bind only to a region registered with MW_BIND (C10-73): " + mr.access());
        }
        if ((access.contains(Access.REMOTE_WRITE) || access.contains(Access.REMOTE_ATOMIC))
                && !mr.access().contains(Access.LOCAL_WRITE)) {
            throw new IllegalArgumentException("a writable window needs a region with LOCAL_WRITE (C10-74)");
        }
        if (length <= 0) {
            throw new IllegalArgumentException(
                    "a window binds a non-empty range (o10-37.2.40), not " + length + " bytes");
        }
        int bits = Access.bits(access);
        gate.enterOrThrow(description);
        try {
            checkConnected();
            // the provider reads both structs during the call: hold them open (order: the QP's gate, window, region)
            synchronized (mw) {
                mw.checkBindable(newRkey);
                synchronized (mr) {
                    mr.checkRange(offset, length);
                    sendPath.postBindWindow(
                            wrId, flags, mw.handle, newRkey, mr.handle, mr.address() + offset, length, bits);
                }
                mw.bound(newRkey);
            }
        } finally {
            gate.leave();
        }
    }

    /** {@link QueuePair#postInvalidate}. */
    void postInvalidate(long wrId, MemoryWindow mw, int flags) throws RdmaException {
        if (!memoryWindows) {
            throw unsupported("memory window invalidation", "type 2 memory windows");
        }
        checkFlags(flags);
        if ((flags & SendFlags.INLINE) != 0) {
            throw new IllegalArgumentException("INLINE applies to SEND and RDMA WRITE, not to an invalidation");
        }
        gate.enterOrThrow(description);
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

    /** {@link QueuePair#postChain}. */
    void postChain(SendChain chain) throws RdmaException {
        int n = chain.count;
        if (n == 0) {
            throw new IllegalArgumentException("an empty chain: nothing to post");
        }
        if (n > maxSendWr) {
            throw new IllegalArgumentException("a chain of " + n + " requests exceeds " + description
                    + "'s send queue of " + maxSendWr + ": post it in parts");
        }
        for (int i = 0; i < n; i++) {
            checkOp(chain.ops[i]);
        }
        gate.enterOrThrow(description);
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

    private void checkOp(Op op) {
        if (op.atomic() && !atomics) {
            throw unsupported(
                    op == Op.FETCH_ADD ? "ATOMIC FETCH AND ADD" : "ATOMIC COMPARE AND SWAP",
                    "atomics (atomic_cap is " + pd.context.attributes().atomicCapability() + ")");
        }
        if (op.immediate() && !immediateData) {
            throw unsupported(
                    op == Op.SEND_WITH_IMM ? "SEND with immediate data" : "RDMA WRITE with immediate data",
                    "immediate data (the iWARP transport has none)");
        }
    }

    private UnsupportedOperationException unsupported(String what, String capability) {
        return new UnsupportedOperationException(
                what + " is not supported by " + deviceName + ": it lacks " + capability);
    }

    private static void checkFlags(int flags) {
        if ((flags & ~SendFlags.ALL) != 0) {
            throw new IllegalArgumentException("unknown send flags 0x" + Integer.toHexString(flags & ~SendFlags.ALL));
        }
    }

    private static void checkAligned(long remoteAddress, String what) {
        if ((remoteAddress & 7) != 0) {
            throw new IllegalArgumentException(
                    what + " needs an 8-byte aligned remote address, got 0x" + Long.toHexString(remoteAddress));
        }
    }

    void postOne(
            Op op,
            long wrId,
            MemoryRegion mr,
            long offset,
            int length,
            long remoteAddress,
            int rkey,
            int immediate,
            long compareAdd,
            long swap,
            int flags)
            throws RdmaException {
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
        gate.enterOrThrow(description);
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

    void postList(Op op, long wrId, ScatterGatherList sgl, long remoteAddress, int rkey, int immediate, int flags)
            throws RdmaException {
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
        gate.enterOrThrow(description);
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
    private void postListInline(
            Op op, long wrId, ScatterGatherList sgl, long remoteAddress, int rkey, int immediate, int flags)
            throws RdmaException {
        gate.enterOrThrow(description);
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

    void postInline(Op op, long wrId, MemorySegment data, long remoteAddress, int rkey, int flags)
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
        gate.enterOrThrow(description);
        try {
            checkConnected();
            sendPath.postInlineData(op, wrId, flags, remoteAddress, rkey, data);
        } finally {
            gate.leave();
        }
    }
}
