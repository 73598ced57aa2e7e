package org.panamardma.verbs.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.NativeResource;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.TransportType;
import org.panamardma.verbs.Verb;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.rdma_addr;
import org.panamardma.verbs.ffi.rdma_cm_id;
import org.panamardma.verbs.ffi.rdma_cma_h;
import org.panamardma.verbs.internal.VerbsAccess;

/**
 * An rdma_cm identifier ({@code struct rdma_cm_id}): like a socket, it binds, listens, resolves a peer's address and
 * route, connects or accepts, and owns the queue pair of its connection.
 *
 * <p>The operations only start things; the outcome arrives as a {@link CmEvent} on the id's {@link EventChannel}
 * (wait for it with {@link #expect} or {@link #await}). A client: {@link #resolveAddress} (ADDR_RESOLVED),
 * {@link #resolveRoute} (ROUTE_RESOLVED), {@link #createQueuePair}, {@link #connect} (ESTABLISHED). A server:
 * {@link #bind}, {@link #listen}, then for each CONNECT_REQUEST its new id: {@link #createQueuePair},
 * {@link #accept} (ESTABLISHED) or {@link #reject}. {@link CmConnector} does these steps synchronously.
 *
 * <p>Once the id is bound to a device (after address resolution, binding to a device's address, or as the id of a
 * CONNECT_REQUEST), {@link #context()} is librdmacm's device context for it: allocate the PD and CQs of the queue
 * pair there. The queue pair can post once the ESTABLISHED event has been taken from the channel.
 *
 * <p>Closing the id destroys its queue pair first ({@code rdma_destroy_qp}), then the id; all its events are acked
 * already. Closing the channel closes the id.
 *
 * <p>Verb of {@link #close()}: {@code rdma_destroy_id}.
 */
@Verb("rdma_destroy_id")
public final class CmId extends NativeResource {
    private static final VerbsAccess VERBS = VerbsAccess.get();

    private final EventChannel channel;
    final MemorySegment handle;
    private final PortSpace portSpace;
    private volatile QueuePair queuePair;
    private volatile Context context;
    /** Set when closing starts; read without the monitor by waiters on the channel. */
    private volatile boolean closing;

    CmId(EventChannel channel, MemorySegment handle, PortSpace portSpace) {
        super("rdma_cm id", channel);
        this.channel = channel;
        this.handle = handle;
        this.portSpace = portSpace;
    }

    /** {@return the event channel this id's events arrive on} */
    public EventChannel channel() {
        return channel;
    }

    /** {@return the port space the id was created in ({@code RDMA_PS_TCP} for reliable connections)} */
    public PortSpace portSpace() {
        return portSpace;
    }

    // ------------------------------------------------------------------------------------------------ addresses

    /**
     * Binds to a local address (port 0: any); to a device's address, it also binds the id to that device.
     *
     * <p>Verb: {@code rdma_bind_addr}.
     *
     * @param address the local IP address and port; the wildcard address binds no device, port 0 takes a free port
     * @throws RdmaException with {@code rdma_bind_addr}'s errno: EADDRINUSE (port taken), EADDRNOTAVAIL (no such local
     *                       address), EINVAL (already bound)
     */
    @Verb("rdma_bind_addr")
    public void bind(InetSocketAddress address) throws RdmaException {
        call("rdma_bind_addr(" + address + ")", (arena, cs) -> {
            MemorySegment sa = SocketAddresses.write(arena, address);
            return rdma_cma_h.rdma_bind_addr(cs, handle, sa);
        });
    }

    /**
     * Listens for connection requests (CONNECT_REQUEST events on this id); bind first.
     *
     * <p>Verb: {@code rdma_listen}.
     *
     * @param backlog the pending CONNECT_REQUESTs the kernel queues before it rejects more (0: librdmacm's default)
     * @throws RdmaException with {@code rdma_listen}'s errno, e.g. EADDRINUSE when another id listens on the port
     * @throws IllegalArgumentException if {@code backlog} is negative
     */
    @Verb("rdma_listen")
    public void listen(int backlog) throws RdmaException {
        if (backlog < 0) {
            throw new IllegalArgumentException("negative backlog " + backlog);
        }
        call("rdma_listen(" + this + ")", (arena, cs) -> rdma_cma_h.rdma_listen(cs, handle, backlog));
    }

    /**
     * Starts resolving {@code destination} to a local device and the peer's hardware address; the outcome is an
     * ADDR_RESOLVED or ADDR_ERROR event, at the latest after {@code timeout}.
     *
     * <p>Verb: {@code rdma_resolve_addr}.
     *
     * @param destination the peer's IP address and port (the port is kept for connect)
     * @param timeout     how long the kernel tries before ADDR_ERROR with ETIMEDOUT, 1 ms to 24 days
     * @throws RdmaException if the resolution cannot start: {@code rdma_resolve_addr}'s errno (ENODEV, EADDRNOTAVAIL);
     *                       a resolution that fails later is an ADDR_ERROR event
     * @throws IllegalArgumentException if {@code timeout} is out of range
     */
    @Verb("rdma_resolve_addr")
    public void resolveAddress(InetSocketAddress destination, Duration timeout) throws RdmaException {
        resolveAddress(null, destination, timeout);
    }

    /**
     * As {@link #resolveAddress(InetSocketAddress, Duration)}, from the local {@code source} address (null: any).
     *
     * <p>Verb: {@code rdma_resolve_addr}.
     *
     * @param source      the local address to resolve from, or null for the route's choice
     * @param destination the peer's IP address and port (the port is kept for connect)
     * @param timeout     how long the kernel tries before ADDR_ERROR with ETIMEDOUT, 1 ms to 24 days
     * @throws RdmaException if the resolution cannot start: {@code rdma_resolve_addr}'s errno (ENODEV, EADDRNOTAVAIL);
     *                       a resolution that fails later is an ADDR_ERROR event
     * @throws IllegalArgumentException if {@code timeout} is out of range
     */
    @Verb("rdma_resolve_addr")
    public void resolveAddress(InetSocketAddress source, InetSocketAddress destination, Duration timeout)
            throws RdmaException {
        Objects.requireNonNull(destination, "destination");
        int millis = timeoutMillis(timeout);
        call("rdma_resolve_addr(" + destination + ")", (arena, cs) -> {
            MemorySegment src = source == null ? MemorySegment.NULL : SocketAddresses.write(arena, source);
            MemorySegment dst = SocketAddresses.write(arena, destination);
            return rdma_cma_h.rdma_resolve_addr(cs, handle, src, dst, millis);
        });
    }

    /**
     * Starts resolving the route to the peer; the outcome is a ROUTE_RESOLVED or ROUTE_ERROR event.
     *
     * <p>Verb: {@code rdma_resolve_route}.
     *
     * @param timeout how long the kernel tries before ROUTE_ERROR, 1 ms to 24 days
     * @throws RdmaException if the resolution cannot start: {@code rdma_resolve_route}'s errno (EINVAL before the
     *                       address is resolved)
     * @throws IllegalArgumentException if {@code timeout} is out of range
     */
    @Verb("rdma_resolve_route")
    public void resolveRoute(Duration timeout) throws RdmaException {
        int millis = timeoutMillis(timeout);
        call("rdma_resolve_route(" + this + ")", (arena, cs) -> rdma_cma_h.rdma_resolve_route(cs, handle, millis));
    }

    /** One librdmacm call on the open id, under its monitor: {@code 0} or an error with the errno it left. */
    private void call(String what, CmCall call) throws RdmaException {
        synchronized (this) {
            checkOpen();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment cs = arena.allocate(Native.CALL_STATE);
                if (call.invoke(arena, cs) != 0) {
                    throw new RdmaException(what, Native.errno(cs));
                }
            }
        }
    }

    /** A librdmacm function that returns 0 or -1 with errno in the call state {@code cs}. */
    @FunctionalInterface
    private interface CmCall {
        int invoke(Arena arena, MemorySegment cs);
    }

    private static int timeoutMillis(Duration timeout) {
        long millis = timeout.toMillis();
        if (millis < 1 || millis > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("timeout out of range 1 ms..24 days: " + timeout);
        }
        return (int) millis;
    }

    /** {@return the local address (after bind, resolution or connection); empty before} */
    public Optional<InetSocketAddress> localAddress() {
        synchronized (this) {
            checkOpen();
            return Optional.ofNullable(SocketAddresses.read(
                    handle.asSlice(rdma_cm_id.route$addr$OFFSET + rdma_addr.$anon0$src_storage$OFFSET, 128)));
        }
    }

    /** {@return the peer's address (after resolution, or of a connection request); empty before} */
    public Optional<InetSocketAddress> peerAddress() {
        synchronized (this) {
            checkOpen();
            return Optional.ofNullable(SocketAddresses.read(
                    handle.asSlice(rdma_cm_id.route$addr$OFFSET + rdma_addr.$anon1$dst_storage$OFFSET, 128)));
        }
    }

    /**
     * {@return the local port in host order, 0 if none yet}
     * <p>Verb: {@code rdma_get_src_port}.
     */
    @Verb("rdma_get_src_port")
    public int localPort() {
        synchronized (this) {
            checkOpen();
            return Short.toUnsignedInt(Short.reverseBytes(rdma_cma_h.rdma_get_src_port(handle)));
        }
    }

    /**
     * {@return the peer's port in host order, 0 if none yet}
     * <p>Verb: {@code rdma_get_dst_port}.
     */
    @Verb("rdma_get_dst_port")
    public int peerPort() {
        synchronized (this) {
            checkOpen();
            return Short.toUnsignedInt(Short.reverseBytes(rdma_cma_h.rdma_get_dst_port(handle)));
        }
    }

    // --------------------------------------------------------------------------------------------------- device

    /**
     * {@return whether the id is bound to a device yet (after bind to a device address, resolution, or a connection
     * request)}
     */
    public boolean hasDevice() {
        synchronized (this) {
            checkOpen();
            return handle.get(ADDRESS, rdma_cm_id.verbs$OFFSET).address() != 0;
        }
    }

    /**
     * The device context librdmacm opened for the id's device (one {@link Context} per device, shared by all ids on
     * it, owned by librdmacm: closing it closes what was made on it, not the device).
     *
     * @return the shared context of the id's device, owned by librdmacm (see above)
     * @throws IllegalStateException before the id is bound to a device
     * @throws RdmaException if wrapping librdmacm's context fails (the errno of the verb that failed)
     */
    public Context context() throws RdmaException {
        Context c = context;
        if (c != null && !c.isClosed()) {
            return c;
        }
        synchronized (this) {
            checkOpen();
            MemorySegment verbs = handle.get(ADDRESS, rdma_cm_id.verbs$OFFSET);
            if (verbs.address() == 0) {
                throw new IllegalStateException(this + " is not bound to a device yet: resolve an address first "
                        + "(or bind to a device's address)");
            }
            c = VERBS.adoptContext(verbs);
            context = c;
            return c;
        }
    }

    /** The device's transport, or null before the id is bound to one. */
    TransportType transportOrNull() throws RdmaException {
        return hasDevice() ? context().transportType() : null;
    }

    /** {@return the port of the device the id is bound to (1 for the usual single-port devices)} */
    public int port() {
        synchronized (this) {
            checkOpen();
            return Math.max(1, Byte.toUnsignedInt(handle.get(JAVA_BYTE, rdma_cm_id.port_num$OFFSET)));
        }
    }

    // ----------------------------------------------------------------------------------------------- queue pair

    /**
     * Creates the id's reliable-connected queue pair in {@code pd}, which must be on this id's {@link #context()}.
     * Where the device has the extended QP API (rxe) it is made with {@code rdma_create_qp_ex} asking for every send
     * operation the device can do (FLUSH and ATOMIC WRITE included); where not (siw: EOPNOTSUPP) with
     * {@code rdma_create_qp}. rdma_cm takes it through its states on connect/accept; it posts sends once the
     * ESTABLISHED event has been taken.
     *
     * <p>Verbs: {@code rdma_create_qp_ex}, {@code rdma_create_qp}.
     *
     * @param pd      the protection domain the QP's memory is registered in
     * @param options queue depths, SGE counts, inline size, CQs and the optional SRQ
     * @return the new queue pair, owned by this id: closing the id destroys it
     * @throws RdmaException with the verb's errno (ENOMEM, EINVAL for what the device cannot give)
     * @throws IllegalStateException if the id has an open queue pair already
     * @throws IllegalArgumentException if {@code pd} or a CQ is on another device context, or an option exceeds the
     *                                  device's limits
     */
    @Verb("rdma_create_qp_ex")
    @Verb("rdma_create_qp")
    public QueuePair createQueuePair(ProtectionDomain pd, QueuePairOptions options) throws RdmaException {
        Objects.requireNonNull(pd, "pd");
        Objects.requireNonNull(options, "options");
        Context ctx = context();
        if (pd.context() != ctx) {
            throw new IllegalArgumentException(pd + " is not on " + this + "'s device context " + ctx.deviceName()
                    + ": allocate it on cmId.context()");
        }
        if (options.sendCq().context() != ctx || options.recvCq().context() != ctx) {
            throw new IllegalArgumentException(
                    "the completion queues must be on " + this + "'s device context " + ctx.deviceName());
        }
        CmQueuePairs.checkLimits(ctx, options);
        synchronized (this) {
            checkOpen();
            QueuePair existing = queuePair;
            if (existing != null && !existing.isClosed()) {
                throw new IllegalStateException(this + " has a queue pair already");
            }
            QueuePair created = CmQueuePairs.create(VERBS, handle, ctx, port(), pd, options);
            queuePair = created;
            return created;
        }
    }

    /** {@return the queue pair made by {@link #createQueuePair}, if it is still open} */
    public Optional<QueuePair> queuePair() {
        QueuePair qp = queuePair;
        return qp == null || qp.isClosed() ? Optional.empty() : Optional.of(qp);
    }

    // ------------------------------------------------------------------------------------------------ connection

    /**
     * Starts connecting to the resolved peer (route resolved, queue pair created); the outcome is ESTABLISHED or
     * REJECTED / UNREACHABLE / CONNECT_ERROR.
     *
     * <p>Verb: {@code rdma_connect}.
     *
     * @param parameters the RDMA READ/atomic resources, retry counts and private data sent in the request
     * @throws IllegalArgumentException if the private data exceeds the transport's {@link PrivateDataLimits}
     * @throws RdmaException with {@code rdma_connect}'s errno (EINVAL before the route is resolved or without a QP); a
     *                       refusal by the peer comes later, as REJECTED
     */
    @Verb("rdma_connect")
    public void connect(ConnectionParameters parameters) throws RdmaException {
        Objects.requireNonNull(parameters, "parameters");
        checkPrivateData(PrivateDataLimits.Operation.CONNECT, parameters.privateDataLength());
        connectOrAccept(true, parameters);
    }

    /**
     * Accepts the connection request this id was made for (after creating its queue pair); ESTABLISHED follows.
     *
     * <p>Verb: {@code rdma_accept}.
     *
     * @param parameters the resources this side grants and the private data of the reply
     * @throws IllegalArgumentException if the private data exceeds the transport's {@link PrivateDataLimits}
     * @throws RdmaException with {@code rdma_accept}'s errno, e.g. EINVAL if the request was already answered
     */
    @Verb("rdma_accept")
    public void accept(ConnectionParameters parameters) throws RdmaException {
        Objects.requireNonNull(parameters, "parameters");
        checkPrivateData(PrivateDataLimits.Operation.ACCEPT, parameters.privateDataLength());
        connectOrAccept(false, parameters);
    }

    private void connectOrAccept(boolean connect, ConnectionParameters p) throws RdmaException {
        call((connect ? "rdma_connect(" : "rdma_accept(") + this + ")", (arena, cs) -> {
            MemorySegment param = p.toConnParam(arena);
            return connect ? rdma_cma_h.rdma_connect(cs, handle, param) : rdma_cma_h.rdma_accept(cs, handle, param);
        });
    }

    /**
     * Rejects the connection request this id was made for, with private data for the peer's REJECTED event. Close
     * the id afterwards.
     *
     * <p>Verb: {@code rdma_reject}.
     *
     * @param privateData the bytes the peer's REJECTED event carries, e.g. a reason; may be empty
     * @throws IllegalArgumentException if the private data exceeds the transport's {@link PrivateDataLimits}
     * @throws RdmaException with {@code rdma_reject}'s errno
     */
    @Verb("rdma_reject")
    public void reject(byte[] privateData) throws RdmaException {
        byte[] data = privateData == null ? new byte[0] : privateData.clone();
        if (data.length > PrivateDataLimits.LIBRDMACM_MAX) {
            throw new IllegalArgumentException("reject with " + data.length + " bytes of private data: rdma_cm "
                    + "carries at most " + PrivateDataLimits.LIBRDMACM_MAX);
        }
        checkPrivateData(PrivateDataLimits.Operation.REJECT, data.length);
        call("rdma_reject(" + this + ")", (arena, cs) -> {
            MemorySegment pd = ConnectionParameters.nativeCopy(arena, data);
            return rdma_cma_h.rdma_reject(cs, handle, pd, (byte) data.length);
        });
    }

    /**
     * Disconnects; the queue pair goes to the error state (pending work completes with WR_FLUSH_ERR). The peer gets
     * DISCONNECTED and should disconnect too: on InfiniBand/RoCE that sends the IB CM's DREP, which is what brings
     * this side its own DISCONNECTED (without it, only the DREQ's timeout does). On iWARP the TCP close does.
     *
     * <p>Verb: {@code rdma_disconnect}.
     *
     * @throws RdmaException with {@code rdma_disconnect}'s errno, e.g. EINVAL when the id was never connected
     */
    @Verb("rdma_disconnect")
    public void disconnect() throws RdmaException {
        call("rdma_disconnect(" + this + ")", (arena, cs) -> rdma_cma_h.rdma_disconnect(cs, handle));
    }

    private void checkPrivateData(PrivateDataLimits.Operation operation, int length) throws RdmaException {
        if (length == 0) {
            return;
        }
        TransportType transport = transportOrNull();
        PrivateDataLimits.check(
                transport,
                transport == null ? "an id without device" : context().deviceName(),
                operation,
                length);
    }

    // ---------------------------------------------------------------------------------------------------- events

    /**
     * The next event of this id within {@code timeout}, or null; see {@link EventChannel#await}.
     *
     * <p>Verbs: {@code rdma_get_cm_event}, {@code rdma_ack_cm_event}.
     *
     * @param timeout how long to wait; zero does not wait
     * @return the event, or null if none came in time
     * @throws RdmaException if {@code rdma_get_cm_event} fails (its errno)
     */
    @Verb("rdma_get_cm_event")
    @Verb("rdma_ack_cm_event")
    public CmEvent await(Duration timeout) throws RdmaException {
        return channel.await(this, timeout);
    }

    /**
     * The next event of this id if it is {@code expected}; see {@link EventChannel#expect}.
     *
     * @param expected the event type awaited
     * @param timeout  how long to wait
     * @return the event, of type {@code expected} with status 0
     * @throws RdmaException a {@link CmEventException} if another event came, a {@link CmTimeoutException} if none did,
     *                       or {@code rdma_get_cm_event}'s errno
     */
    public CmEvent expect(CmEventType expected, Duration timeout) throws RdmaException {
        return channel.expect(this, expected, timeout);
    }

    /** Called when an event of this id is handed to a caller: ESTABLISHED makes the queue pair usable. */
    void delivered(CmEvent event) throws RdmaException {
        if (event.type() != CmEventType.ESTABLISHED || event.status() != 0) {
            return;
        }
        QueuePair qp = queuePair;
        if (qp != null && !qp.isClosed()) {
            VERBS.markConnected(qp);
            VERBS.grantFlushAccess(qp);
        }
    }

    /** Whether the id is closed or being closed (no lock: safe to ask while holding the channel's monitor). */
    boolean closing() {
        return closing;
    }

    @Override
    protected void destroy() {
        closing = true;
        QueuePair qp = queuePair;
        if (qp != null) {
            qp.close(); // rdma_destroy_qp through its hook, before the id goes
        }
        channel.unregister(this);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cs = arena.allocate(Native.CALL_STATE);
            if (rdma_cma_h.rdma_destroy_id(cs, handle) != 0) {
                throw new IllegalStateException("rdma_destroy_id failed: " + Errno.name(Native.errno(cs)));
            }
        }
    }

    @Override
    protected String describe() {
        return "rdma_cm id 0x" + Long.toHexString(handle.address());
    }
}
