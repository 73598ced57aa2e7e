package org.panamardma.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.ibv_pd;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * A protection domain: memory regions, queue pairs and SRQs that may work together.
 *
 * <p>Verb of {@link #close()}: {@code ibv_dealloc_pd}.
 */
@Verb("ibv_dealloc_pd")
public final class ProtectionDomain extends NativeResource {
    final Context context;
    final MemorySegment handle;
    /** ibv_reg_mr calls that succeeded in this PD, and ibv_dereg_mr calls made for its regions. */
    private final LongAdder registrations = new LongAdder();

    private final LongAdder deregistrations = new LongAdder();
    /**
     * The open regions by rkey, for {@link #regionByRkey}: a responder that checks a peer's STag itself (the RFC 7306
     * agent of the connection layer) finds the region the device would. Keys are unique among a device's live
     * regions; a region leaves the map when it is deregistered.
     */
    private final Map<Integer, MemoryRegion> regionsByRkey = new ConcurrentHashMap<>();

    private ProtectionDomain(Context context, MemorySegment handle) {
        super("protection domain", context);
        this.context = context;
        this.handle = handle;
    }

    static ProtectionDomain allocate(Context context) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            MemorySegment pd = verbs_h.ibv_alloc_pd(callState, context.handle);
            if (pd.equals(MemorySegment.NULL)) {
                throw new RdmaException("ibv_alloc_pd(" + context.deviceName() + ")", Native.errno(callState));
            }
            return new ProtectionDomain(context, pd.reinterpret(ibv_pd.layout().byteSize()));
        }
    }

    /** {@return the device context the protection domain is on} */
    public Context context() {
        return context;
    }

    /**
     * Registers caller-owned memory. The segment must stay alive while the region is registered: close the
     * region before the segment's arena. (The region checks that the segment is alive on every use; what it cannot
     * stop is a peer writing into memory the caller freed, so the order matters.)
     *
     * <p>Verb: {@code ibv_reg_mr_iova2}.
     *
     * @param segment native memory the caller keeps alive until the region is closed
     * @param access  what the local device and the peer may do with it; remote write and remote atomic need local write
     * @return the region, with its lkey and rkey; closing it deregisters (the segment stays the caller's)
     * @throws IllegalStateException if the segment's memory is already freed (its arena closed)
     * @throws IllegalArgumentException for a heap segment (the device needs stable native memory)
     * @throws RdmaException with {@code ibv_reg_mr}'s errno: ENOMEM past {@code RLIMIT_MEMLOCK}, EINVAL for an access
     *                       combination the device refuses, EFAULT for memory the kernel cannot pin
     */
    @Verb("ibv_reg_mr_iova2")
    public MemoryRegion register(MemorySegment segment, Set<Access> access) throws RdmaException {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered; got a heap segment");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("cannot register memory whose arena is already closed");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        synchronized (this) {
            checkOpen();
            return remember(MemoryRegion.register(this, segment, copy(access), null));
        }
    }

    /**
     * Allocates {@code size} bytes of page-aligned, zeroed native memory owned by the region, and registers it.
     *
     * <p>Verb: {@code ibv_reg_mr_iova2}.
     *
     * @param size   bytes, at least 1 (rounded up to whole pages when allocated)
     * @param access what the local device and the peer may do with it; remote write and remote atomic need local write
     * @return the region, which owns the memory: closing it deregisters and frees it
     * @throws RdmaException with {@code ibv_reg_mr}'s errno: ENOMEM past {@code RLIMIT_MEMLOCK}, EINVAL for an access
     *                       combination the device refuses
     * @throws IllegalArgumentException if {@code size} is below 1
     */
    @Verb("ibv_reg_mr_iova2")
    public MemoryRegion allocate(long size, Set<Access> access) throws RdmaException {
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive: " + size);
        }
        Arena arena = Arena.ofShared();
        try {
            MemorySegment memory = arena.allocate(size, 4096);
            synchronized (this) {
                checkOpen();
                return remember(MemoryRegion.register(this, memory, copy(access), arena));
            }
        } catch (RdmaException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** Every region registered here passes through here: counted, and found by its rkey while open. */
    private MemoryRegion remember(MemoryRegion mr) {
        registrations.increment();
        regionsByRkey.put(mr.rkey(), mr);
        return mr;
    }

    /** Called by a region being deregistered. */
    void forget(MemoryRegion mr) {
        regionsByRkey.remove(mr.rkey(), mr);
    }

    /**
     * The open memory region of this protection domain whose {@link MemoryRegion#rkey() rkey} is {@code rkey}, as
     * the device resolves a peer's STag against its registrations; empty if there is none (never registered here,
     * or deregistered since). The region may be closed by its owner right after: hold its monitor (as every native
     * call on it does) to keep it open while using it.
     *
     * @param rkey a remote key, e.g. from an RPC-over-RDMA chunk a peer names
     * @return the region, or empty
     */
    public Optional<MemoryRegion> regionByRkey(int rkey) {
        return Optional.ofNullable(regionsByRkey.get(rkey));
    }

    /**
     * How many regions were registered here.
     *
     * @return the memory regions registered in this PD so far ({@code ibv_reg_mr} calls that succeeded): what a
     *         transport that claims to register nothing per call in steady state is checked against
     */
    public long registrations() {
        return registrations.sum();
    }

    /**
     * How many regions were deregistered here.
     *
     * @return the {@code ibv_dereg_mr} calls made for this PD's regions so far (failed ones included)
     */
    public long deregistrations() {
        return deregistrations.sum();
    }

    void countDeregistration() {
        deregistrations.increment();
    }

    /**
     * Allocates a type 2 memory window ({@code ibv_alloc_mw(pd, IBV_MW_TYPE_2)}), free until a queue pair of this PD
     * binds it ({@link QueuePair#postBindMemoryWindow}).
     *
     * <p>Verb: {@code ibv_alloc_mw}.
     *
     * @return the window, free (no key valid at the peer) until bound
     * @throws UnsupportedOperationException if the device has no type 2 memory windows (siw), naming the device
     * @throws RdmaException with {@code ibv_alloc_mw}'s errno
     */
    @Verb("ibv_alloc_mw")
    public MemoryWindow allocateMemoryWindow() throws RdmaException {
        synchronized (this) {
            checkOpen();
            return MemoryWindow.allocate(this);
        }
    }

    /** An empty set is a valid request (local read only, e.g. a buffer that is only sent from). */
    private static Set<Access> copy(Set<Access> access) {
        return access.isEmpty() ? EnumSet.noneOf(Access.class) : EnumSet.copyOf(access);
    }

    /** {@return a builder of a reliable-connected queue pair in this PD (nothing is made until it builds)} */
    public QueuePairBuilder queuePair() {
        return new QueuePairBuilder(this);
    }

    /**
     * Creates a shared receive queue.
     *
     * <p>Verb: {@code ibv_create_srq}.
     *
     * @param maxWr  receives posted at once, up to {@link DeviceAttributes#maxSrqWr()}
     * @param maxSge scatter elements per receive, up to {@link DeviceAttributes#maxSrqSge()}
     * @return the new SRQ; hand it to the queue pairs that share it
     * @throws RdmaException with {@code ibv_create_srq}'s errno (EINVAL beyond the device's limits, ENOMEM)
     */
    @Verb("ibv_create_srq")
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge) throws RdmaException {
        synchronized (this) {
            checkOpen();
            return SharedReceiveQueue.create(this, maxWr, maxSge);
        }
    }

    @Override
    protected void destroy() {
        int rc = verbs_h.ibv_dealloc_pd(handle);
        if (rc != 0) {
            throw new IllegalStateException("ibv_dealloc_pd failed: " + Errno.name(rc));
        }
    }

    @Override
    protected String describe() {
        return "protection domain on " + context.deviceName();
    }
}
