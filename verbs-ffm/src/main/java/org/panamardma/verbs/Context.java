package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_context;
import org.panamardma.verbs.ffi.ibv_device;
import org.panamardma.verbs.ffi.ibv_gid_entry;
import org.panamardma.verbs.ffi.ibv_port_attr;
import org.panamardma.verbs.ffi.verbs_context;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * An opened RDMA device ({@code struct ibv_context}): the parent of protection domains, completion queues and
 * completion channels. Its device attributes are queried once, at open.
 *
 * <p>Verb of {@link #close()}: {@code ibv_close_device}.
 */
@Verb("ibv_close_device")
public final class Context extends NativeResource {
    static {
        org.panamardma.verbs.internal.VerbsAccess.set(new VerbsAccessImpl());
    }

    /** Contexts opened by librdmacm, wrapped once each: rdma_cm ids on one device share one. */
    private static final java.util.Map<Long, Context> ADOPTED = new java.util.concurrent.ConcurrentHashMap<>();

    final MemorySegment handle;
    private final boolean owned;
    private final String deviceName;
    private final TransportType transportType;
    private final DeviceAttributes attributes;
    /** What the provider's data-path calls do (enter the kernel or not): decided once, from the vendor id. */
    final ProviderTraits providerTraits;

    // function pointers behind the static inline verbs, read once
    final MemorySegment pollCqFn;
    final MemorySegment reqNotifyCqFn;
    final MemorySegment postSendFn;
    final MemorySegment postRecvFn;
    final MemorySegment postSrqRecvFn;
    /** ibv_context_ops.alloc_mw / dealloc_mw: libibverbs fills them with EOPNOTSUPP stubs where the provider has none. */
    final MemorySegment allocMwFn;

    final MemorySegment deallocMwFn;
    final MemorySegment createQpExFn;
    final MemorySegment createCqExFn;
    private final MemorySegment queryPortFn;

    /** QPs, CQs and SRQs made on this context, by native address: what async events name. */
    private final java.util.Map<Long, NativeResource> eventSubjects = new java.util.concurrent.ConcurrentHashMap<>();
    /** The running async event monitor, if any; guarded by this. */
    private AsyncEventMonitor asyncMonitor;

    private Context(MemorySegment handle, String deviceName, TransportType transportType, boolean owned)
            throws RdmaException {
        super("device context");
        this.handle = handle;
        this.owned = owned;
        this.deviceName = deviceName;
        this.transportType = transportType;
        this.pollCqFn = handle.get(ADDRESS, ibv_context.ops$poll_cq$OFFSET);
        this.reqNotifyCqFn = handle.get(ADDRESS, ibv_context.ops$req_notify_cq$OFFSET);
        this.postSendFn = handle.get(ADDRESS, ibv_context.ops$post_send$OFFSET);
        this.postRecvFn = handle.get(ADDRESS, ibv_context.ops$post_recv$OFFSET);
        this.postSrqRecvFn = handle.get(ADDRESS, ibv_context.ops$post_srq_recv$OFFSET);
        this.allocMwFn = handle.get(ADDRESS, ibv_context.ops$alloc_mw$OFFSET);
        this.deallocMwFn = handle.get(ADDRESS, ibv_context.ops$dealloc_mw$OFFSET);
        this.createQpExFn = extendedOp(verbs_context.create_qp_ex$OFFSET);
        this.createCqExFn = extendedOp(verbs_context.create_cq_ex$OFFSET);
        this.queryPortFn = extendedOp(verbs_context.query_port$OFFSET);
        this.attributes = DeviceQuery.query(handle, deviceName, extendedOp(verbs_context.query_device_ex$OFFSET));
        this.providerTraits = ProviderTraits.of(attributes.vendorId());
    }

    /**
     * Opens the named device.
     *
     * <p>Verbs: {@code ibv_get_device_list}, {@code ibv_open_device}.
     *
     * @param deviceName the kernel's device name, e.g. {@code rxe0} (see {@link Device#list()})
     * @return the open context; close it last, after everything made on it (closing it closes them first)
     * @throws RdmaLibraryException if libibverbs is not installed (the message names the package to install), cannot be
     *                              loaded, or is older than rdma-core {@value RdmaCore#OLDEST_SUPPORTED}
     * @throws RdmaException if there is no device of that name, or with the errno of {@code ibv_get_device_list} or
     *                       {@code ibv_open_device} (EPERM, ENOMEM)
     */
    @Verb("ibv_get_device_list")
    @Verb("ibv_open_device")
    public static Context open(String deviceName) throws RdmaException {
        RdmaCore.checkIbverbs();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment list = verbs_h.ibv_get_device_list(callState, count);
            if (list.equals(MemorySegment.NULL)) {
                throw new RdmaException("ibv_get_device_list", Native.errno(callState));
            }
            try {
                int n = count.get(JAVA_INT, 0);
                MemorySegment pointers = list.reinterpret(ADDRESS.byteSize() * n);
                List<String> names = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    MemorySegment dev = pointers.getAtIndex(ADDRESS, i)
                            .reinterpret(ibv_device.layout().byteSize());
                    String name = ibv_device.name(dev);
                    names.add(name);
                    if (name.equals(deviceName)) {
                        MemorySegment ctx = verbs_h.ibv_open_device(callState, dev);
                        if (ctx.equals(MemorySegment.NULL)) {
                            throw new RdmaException("ibv_open_device(" + deviceName + ")", Native.errno(callState));
                        }
                        return new Context(
                                ctx.reinterpret(ibv_context.layout().byteSize()),
                                name,
                                TransportType.of(ibv_device.transport_type(dev)),
                                true);
                    }
                }
                throw new RdmaException("no RDMA device named " + deviceName + " (devices: " + names + ")");
            } finally {
                // opened contexts keep their device referenced; the list can go
                verbs_h.ibv_free_device_list(list);
            }
        }
    }

    /** The Context of a device context that librdmacm opened and owns (see VerbsAccess). */
    static Context adopt(MemorySegment ibvContext) throws RdmaException {
        RdmaCore.checkIbverbs();
        Context known = ADOPTED.get(ibvContext.address());
        if (known != null) {
            return known;
        }
        synchronized (ADOPTED) {
            known = ADOPTED.get(ibvContext.address());
            if (known == null) {
                MemorySegment ctx = ibvContext.reinterpret(ibv_context.layout().byteSize());
                MemorySegment dev = ctx.get(ADDRESS, ibv_context.device$OFFSET)
                        .reinterpret(ibv_device.layout().byteSize());
                known = new Context(ctx, ibv_device.name(dev), TransportType.of(ibv_device.transport_type(dev)), false);
                ADOPTED.put(ibvContext.address(), known);
            }
            return known;
        }
    }

    /**
     * The function pointer {@code op} (given by its offset in the bindings' verbs_context) of the verbs_context in
     * front of this context, or NULL where the installed libibverbs' verbs_context has no such member or the
     * provider no such op: the checks of {@code verbs_get_ctx_op} in verbs.h.
     *
     * <p>verbs_context grows at its front ("grows up": new ops are prepended) and ends with {@code size_t sz} and
     * the {@code struct ibv_context}; libibverbs sets {@code sz} to its own {@code sizeof(struct verbs_context)}
     * ({@code context_ex->sz = sizeof(*context_ex)} in _verbs_init_and_alloc_context, libibverbs/device.c). So an op
     * is at the same distance from the end in every release, and exists if that distance is within {@code sz}. The
     * view read here is the installed struct (sz bytes, ending where the ibv_context ends), so an op the installed
     * release lacks cannot be read. (rdma-core 45 to 56 added no op: {@code git diff v44.0 v56.1 --
     * libibverbs/verbs.h} leaves verbs_context alone, and the ABI check against 44's headers finds it equal.)
     */
    private MemorySegment extendedOp(long opOffset) {
        if (handle.get(JAVA_LONG, ibv_context.abi_compat$OFFSET) != verbs_h.__VERBS_ABI_IS_EXTENDED) {
            return MemorySegment.NULL;
        }
        long bindingsSize = verbs_context.layout().byteSize();
        long contextSize = bindingsSize - verbs_context.context$OFFSET; // sizeof(struct ibv_context), never changed
        long szBeforeContext = verbs_context.context$OFFSET - verbs_context.sz$OFFSET;
        long sz = MemorySegment.ofAddress(handle.address() - szBeforeContext)
                .reinterpret(JAVA_LONG.byteSize())
                .get(JAVA_LONG, 0);
        long fromEnd = bindingsSize - opOffset;
        if (sz < fromEnd || sz > 1 << 16) {
            return MemorySegment.NULL;
        }
        MemorySegment installed =
                MemorySegment.ofAddress(handle.address() + contextSize - sz).reinterpret(sz);
        return installed.get(ADDRESS, sz - fromEnd);
    }

    /** {@return the device's name ({@code rxe0}, {@code siw0}, {@code mlx5_0}...)} */
    public String deviceName() {
        return deviceName;
    }

    /** {@return the device's transport: InfiniBand (also RoCE) or iWARP} */
    public TransportType transportType() {
        return transportType;
    }

    /**
     * Whether the memory of a request posted unsignaled may still be read by the device after a later signaled request
     * on the same send queue completed: true on siw, which sends such a payload of a page or more to TCP without a
     * copy, and TCP reads it until the peer acknowledged it. On such a device a payload's memory may be reused only
     * after the completion of its own, signaled, request; {@link org.panamardma.verbs.connection.RdmaConnection} signals
     * those requests itself.
     *
     * @param length the payload's bytes
     * @return true where a payload of {@code length} bytes must be posted signaled for its memory to be reusable at
     *         its completion
     */
    public boolean mustSignalToReuse(long length) {
        return providerTraits.unsignaledPayloadsSentInPlace() && length >= ProviderTraits.IN_PLACE_THRESHOLD;
    }

    /**
     * The device's limits and capabilities, as queried when it was opened.
     *
     * <p>Verbs: {@code ibv_query_device_ex}, {@code ibv_query_device}.
     *
     * @return the attributes (a value: querying again needs a new context)
     */
    @Verb("ibv_query_device_ex")
    @Verb("ibv_query_device")
    public DeviceAttributes attributes() {
        return attributes;
    }

    /**
     * Queries a port (numbered from 1).
     *
     * <p>Verb: {@code ibv_query_port}.
     *
     * @param port the port number, 1 to {@link DeviceAttributes#physicalPortCount()}
     * @return the port's state, MTUs, link layer and limits now
     * @throws RdmaException with {@code ibv_query_port}'s errno (EINVAL for a port the device does not have)
     */
    @Verb("ibv_query_port")
    public PortAttributes queryPort(int port) throws RdmaException {
        checkPort(port);
        try (Arena arena = Arena.ofConfined()) {
            // what the installed libibverbs fills (its struct ends before active_speed_ex before 49): nothing later
            // can be read from this view, and the library is told this size as C callers tell it theirs
            MemorySegment attr = arena.allocate(RdmaCore.portAttrSize(), 8);
            int rc;
            synchronized (this) {
                checkOpen();
                if (!queryPortFn.equals(MemorySegment.NULL)) {
                    rc = (int) VerbsOps.QUERY_PORT.invokeExact(queryPortFn, handle, (byte) port, attr, attr.byteSize());
                } else {
                    rc = verbs_h.ibv_query_port(handle, (byte) port, attr);
                }
            }
            if (rc != 0) {
                throw new RdmaException("ibv_query_port(" + deviceName + ", " + port + ")", rc);
            }
            return new PortAttributes(
                    port,
                    PortState.of(attr.get(JAVA_INT, ibv_port_attr.state$OFFSET)),
                    Mtu.of(attr.get(JAVA_INT, ibv_port_attr.max_mtu$OFFSET)),
                    Mtu.of(attr.get(JAVA_INT, ibv_port_attr.active_mtu$OFFSET)),
                    attr.get(JAVA_INT, ibv_port_attr.gid_tbl_len$OFFSET),
                    Short.toUnsignedInt(attr.get(JAVA_SHORT, ibv_port_attr.lid$OFFSET)),
                    LinkLayer.of(attr.get(JAVA_BYTE, ibv_port_attr.link_layer$OFFSET)),
                    Integer.toUnsignedLong(attr.get(JAVA_INT, ibv_port_attr.max_msg_sz$OFFSET)),
                    attr.get(JAVA_INT, ibv_port_attr.port_cap_flags$OFFSET));
        } catch (RdmaException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * The valid entries of a port's GID table.
     *
     * <p>Verb: {@code ibv_query_gid_table}.
     *
     * @param port the port number, 1 to {@link DeviceAttributes#physicalPortCount()}
     * @return the valid entries, in index order (unused entries left out)
     * @throws RdmaException with {@code ibv_query_gid_table}'s errno (rdma-core 32 and later; EOPNOTSUPP where the
     *                       kernel lacks the query)
     */
    @Verb("ibv_query_gid_table")
    public List<GidEntry> gidTable(int port) throws RdmaException {
        int length = queryPort(port).gidTableLength();
        try (Arena arena = Arena.ofConfined()) {
            long entrySize = ibv_gid_entry.layout().byteSize();
            MemorySegment entries = arena.allocate(entrySize * Math.max(1, length), 8);
            long n;
            synchronized (this) {
                checkOpen();
                n = verbs_h._ibv_query_gid_table(handle, entries, length, 0, entrySize);
            }
            if (n < 0) {
                throw new RdmaException("ibv_query_gid_table(" + deviceName + ")", (int) -n);
            }
            List<GidEntry> out = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                MemorySegment e = entries.asSlice(i * entrySize, entrySize);
                int entryPort = e.get(JAVA_INT, ibv_gid_entry.port_num$OFFSET);
                if (entryPort == port) {
                    out.add(new GidEntry(
                            e.get(JAVA_INT, ibv_gid_entry.gid_index$OFFSET),
                            entryPort,
                            Gid.read(e, ibv_gid_entry.gid$OFFSET),
                            GidType.of(e.get(JAVA_INT, ibv_gid_entry.gid_type$OFFSET)),
                            e.get(JAVA_INT, ibv_gid_entry.ndev_ifindex$OFFSET)));
                }
            }
            return List.copyOf(out);
        }
    }

    /**
     * Allocates a protection domain.
     *
     * <p>Verb: {@code ibv_alloc_pd}.
     *
     * @return the new protection domain; closing it closes its regions, windows, queue pairs and SRQs first
     * @throws RdmaException with {@code ibv_alloc_pd}'s errno (ENOMEM)
     */
    @Verb("ibv_alloc_pd")
    public ProtectionDomain allocateProtectionDomain() throws RdmaException {
        synchronized (this) {
            checkOpen();
            return ProtectionDomain.allocate(this);
        }
    }

    /**
     * Creates a completion channel, for waiting on completions instead of busy polling.
     *
     * <p>Verb: {@code ibv_create_comp_channel}.
     *
     * @return the new channel; close it after the CQs made with it
     * @throws RdmaException with {@code ibv_create_comp_channel}'s errno (EMFILE: out of descriptors)
     */
    @Verb("ibv_create_comp_channel")
    public CompletionChannel createCompletionChannel() throws RdmaException {
        synchronized (this) {
            checkOpen();
            return CompletionChannel.create(this);
        }
    }

    /**
     * Creates a completion queue of at least {@code capacity} entries, polled only (no channel).
     *
     * <p>Verb: {@code ibv_create_cq}.
     *
     * @param capacity the entries wanted, 1 to {@link DeviceAttributes#maxCqe()}; the device may give more
     * @return the new CQ
     * @throws RdmaException with {@code ibv_create_cq}'s errno (ENOMEM)
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    @Verb("ibv_create_cq")
    public CompletionQueue createCompletionQueue(int capacity) throws RdmaException {
        return createCompletionQueue(capacity, null);
    }

    /**
     * Creates a completion queue of at least {@code capacity} entries whose completion events go to
     * {@code channel} (null: none).
     *
     * <p>Verb: {@code ibv_create_cq}.
     *
     * @param capacity the entries wanted, 1 to {@link DeviceAttributes#maxCqe()}; the device may give more
     * @param channel  where its completion events go once armed, or null
     * @return the new CQ
     * @throws RdmaException with {@code ibv_create_cq}'s errno (ENOMEM)
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    @Verb("ibv_create_cq")
    public CompletionQueue createCompletionQueue(int capacity, CompletionChannel channel) throws RdmaException {
        return createCompletionQueue(capacity, channel, false);
    }

    /**
     * Like {@link #createCompletionQueue(int, CompletionChannel)}; with {@code extended}, the CQ is created with
     * {@code ibv_create_cq_ex} and polled with {@code ibv_start_poll}/{@code ibv_next_poll} where the provider has
     * them (rxe), and is a plain CQ where it has not (siw) — see {@link CompletionQueue#isExtended()}.
     *
     * <p>Verbs: {@code ibv_create_cq}, {@code ibv_create_cq_ex}.
     *
     * @param capacity the entries wanted, 1 to {@link DeviceAttributes#maxCqe()}; the device may give more
     * @param channel  where its completion events go once armed, or null
     * @param extended whether to ask for an {@code ibv_cq_ex} (a plain CQ where the provider has none)
     * @return the new CQ
     * @throws RdmaException with the errno of {@code ibv_create_cq_ex} or {@code ibv_create_cq} (ENOMEM)
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    @Verb("ibv_create_cq")
    @Verb("ibv_create_cq_ex")
    public CompletionQueue createCompletionQueue(int capacity, CompletionChannel channel, boolean extended)
            throws RdmaException {
        if (capacity < 1 || capacity > attributes.maxCqe()) {
            throw new IllegalArgumentException(
                    "CQ capacity " + capacity + " out of range 1.." + attributes.maxCqe() + " of " + deviceName);
        }
        synchronized (this) {
            checkOpen();
            return CompletionQueue.create(this, capacity, channel, extended);
        }
    }

    /**
     * Starts delivering this device's asynchronous events (port up/down, QP fatal, CQ error, SRQ limit...) to
     * {@code listener}, on a thread of the returned monitor; close the monitor to stop. One at a time per context.
     *
     * <p>Verbs: {@code ibv_get_async_event}, {@code ibv_ack_async_event}.
     *
     * @param listener gets each event, on the monitor's thread; it must not block for long (events wait behind it)
     * @return the running monitor; close it to stop delivering
     * @throws RdmaException if the async fd cannot be made non-blocking (its errno)
     * @throws IllegalStateException if the context already has a monitor open
     */
    @Verb("ibv_get_async_event")
    @Verb("ibv_ack_async_event")
    public AsyncEventMonitor monitorAsyncEvents(java.util.function.Consumer<AsyncEvent> listener) throws RdmaException {
        synchronized (this) {
            checkOpen();
            if (asyncMonitor != null) {
                throw new IllegalStateException(describe() + " already has " + asyncMonitor.describe()
                        + ": its async events have one queue; close that monitor first");
            }
            asyncMonitor = AsyncEventMonitor.start(this, listener);
            return asyncMonitor;
        }
    }

    void monitorClosed(AsyncEventMonitor m) {
        synchronized (this) {
            if (asyncMonitor == m) {
                asyncMonitor = null;
            }
        }
    }

    int asyncFd() {
        return handle.get(JAVA_INT, ibv_context.async_fd$OFFSET);
    }

    void track(MemorySegment nativeObject, NativeResource r) {
        eventSubjects.put(nativeObject.address(), r);
    }

    void untrack(MemorySegment nativeObject) {
        eventSubjects.remove(nativeObject.address());
    }

    java.util.Optional<NativeResource> tracked(long address) {
        return java.util.Optional.ofNullable(eventSubjects.get(address));
    }

    void checkPort(int port) {
        if (port < 1 || port > attributes.physicalPortCount()) {
            throw new IllegalArgumentException(
                    deviceName + " has ports 1.." + attributes.physicalPortCount() + ", not " + port);
        }
    }

    @Override
    protected void destroy() {
        if (!owned) {
            // librdmacm's: it closes it itself; closing this Java object closed what we made on it
            ADOPTED.remove(handle.address());
            return;
        }
        int rc = verbs_h.ibv_close_device(handle);
        if (rc != 0) {
            throw new IllegalStateException("ibv_close_device(" + deviceName + ") failed: " + Errno.name(rc));
        }
    }

    @Override
    protected String describe() {
        return "device context " + deviceName;
    }
}
