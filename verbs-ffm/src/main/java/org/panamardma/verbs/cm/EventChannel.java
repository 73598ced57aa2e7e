package org.panamardma.verbs.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.panamardma.verbs.cm.CmVerbs.VERBS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.NativeResource;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.Verb;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.rdma_cm_event;
import org.panamardma.verbs.ffi.rdma_cm_id;
import org.panamardma.verbs.ffi.rdma_cma_h;
import org.panamardma.verbs.ffi.rdma_conn_param;
import org.panamardma.verbs.ffi.rdma_event_channel;
import org.panamardma.verbs.internal.ReadableFd;

/**
 * An rdma_cm event channel ({@code struct rdma_event_channel}): where the events of its {@link CmId}s arrive.
 *
 * <p>Its file descriptor is non-blocking; every wait is a {@code poll(2)} with a timeout, so nothing here blocks
 * for longer than asked. Each event is copied into an immutable {@link CmEvent} and acked at once (librdmacm's
 * {@code rdma_destroy_id} waits for the acks of its id's events, so none is ever held). Events are queued per
 * channel in arrival order: {@link #await(CmId, Duration)} takes the oldest of one id — a listening id also gets
 * the CONNECT_REQUESTs for it — and leaves the others for their own waiters; {@link #poll(Duration)} takes the
 * oldest of any id. Any thread may wait; the one that reads the fd queues what it reads for the others.
 *
 * <p>A CONNECT_REQUEST carries a new rdma_cm id made by librdmacm on this channel: it becomes a new {@link CmId},
 * owned by this channel like the others, destroyed when closed (reject it or close it if unwanted).
 *
 * <p>Closing the channel closes its ids first (each after its queue pair), then destroys the channel.
 *
 * <p>Verb of {@link #close()}: {@code rdma_destroy_event_channel}.
 */
@Verb("rdma_destroy_event_channel")
public final class EventChannel extends NativeResource {
    /** The longest single poll(2): how soon a reader notices close, and a waiter re-checks its deadline. */
    private static final int WAIT_SLICE_MILLIS = 50;

    final MemorySegment handle;
    private final int fd;
    private final Arena scratchArena = Arena.ofShared();
    private final ReadableFd<RdmaException> readable;
    private final MemorySegment eventOut;
    private final MemorySegment callState;
    /** The ids of this channel by their rdma_cm_id address. */
    private final Map<Long, CmId> ids = new ConcurrentHashMap<>();
    /** Events read but not yet taken, oldest first; guarded by this. */
    private final ArrayDeque<CmEvent> pending = new ArrayDeque<>();
    /** Whether a thread is in poll(2) on the fd (outside the monitor); guarded by this. */
    private boolean readerActive;

    private EventChannel(MemorySegment handle) throws RdmaException {
        super("rdma_cm event channel");
        this.handle = handle;
        this.fd = handle.get(JAVA_INT, rdma_event_channel.fd$OFFSET);
        this.eventOut = scratchArena.allocate(ADDRESS);
        this.callState = scratchArena.allocate(Native.CALL_STATE);
        try {
            this.readable = new ReadableFd<>(fd, "rdma_cm event channel", scratchArena, RdmaException::new);
        } catch (RdmaException e) {
            scratchArena.close();
            throw e;
        }
    }

    /**
     * Opens an event channel ({@code rdma_create_event_channel}).
     *
     * <p>Verb: {@code rdma_create_event_channel}.
     *
     * @return the new channel; close it after every id made on it
     * @throws org.panamardma.verbs.RdmaLibraryException if librdmacm or libibverbs is not installed (the message names
     *                                                   the package to install), cannot be loaded, or is older than the
     *                                                   oldest rdma-core supported
     * @throws RdmaException with {@code rdma_create_event_channel}'s errno (ENODEV: no RDMA device, EMFILE)
     */
    @Verb("rdma_create_event_channel")
    public static EventChannel create() throws RdmaException {
        VERBS.checkRdmacm();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cs = arena.allocate(Native.CALL_STATE);
            MemorySegment ch = rdma_cma_h.rdma_create_event_channel(cs);
            if (ch.address() == 0) {
                throw new RdmaException("rdma_create_event_channel", Native.errno(cs));
            }
            MemorySegment handle = ch.reinterpret(rdma_event_channel.layout().byteSize());
            try {
                return new EventChannel(handle);
            } catch (RdmaException | RuntimeException e) {
                rdma_cma_h.rdma_destroy_event_channel(handle);
                throw e;
            }
        }
    }

    /** {@return the channel's file descriptor (non-blocking), for an event loop: readable when events are there} */
    public int fd() {
        return fd;
    }

    /**
     * Creates an id in the TCP port space (reliable connected QPs).
     *
     * <p>Verb: {@code rdma_create_id}.
     *
     * @return the new id; close it (it closes its queue pair)
     * @throws RdmaException with {@code rdma_create_id}'s errno (ENOMEM)
     */
    @Verb("rdma_create_id")
    public CmId createId() throws RdmaException {
        return createId(PortSpace.TCP);
    }

    /**
     * Creates an id ({@code rdma_create_id}).
     *
     * <p>Verb: {@code rdma_create_id}.
     *
     * @param portSpace the port space: TCP for reliable connected QPs, UDP for datagrams
     * @return the new id; close it (it closes its queue pair)
     * @throws RdmaException with {@code rdma_create_id}'s errno (ENOMEM)
     */
    @Verb("rdma_create_id")
    public CmId createId(PortSpace portSpace) throws RdmaException {
        Objects.requireNonNull(portSpace, "portSpace");
        synchronized (this) {
            checkOpen();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment cs = arena.allocate(Native.CALL_STATE);
                MemorySegment out = arena.allocate(ADDRESS);
                int rc = rdma_cma_h.rdma_create_id(cs, handle, out, MemorySegment.NULL, portSpace.value());
                if (rc != 0) {
                    throw new RdmaException("rdma_create_id", Native.errno(cs));
                }
                return register(out.get(ADDRESS, 0), portSpace);
            }
        }
    }

    /** Wraps and registers a native id of this channel. Holds this monitor. */
    private CmId register(MemorySegment id, PortSpace portSpace) {
        CmId cmId = new CmId(this, id.reinterpret(rdma_cm_id.layout().byteSize()), portSpace);
        ids.put(id.address(), cmId);
        return cmId;
    }

    void unregister(CmId id) {
        ids.remove(id.handle.address());
    }

    /**
     * Waits up to {@code timeout} for the next event of {@code id} (for a listening id: also the CONNECT_REQUESTs
     * for it); returns null on timeout. Events of other ids stay queued for their waiters.
     *
     * <p>Verbs: {@code rdma_get_cm_event}, {@code rdma_ack_cm_event}.
     *
     * @param id      an id of this channel
     * @param timeout how long to wait; zero does not wait
     * @return the event, acknowledged (its data copied), or null if none came in time
     * @throws RdmaException with {@code rdma_get_cm_event}'s errno
     * @throws IllegalArgumentException if {@code id} belongs to another channel
     */
    @Verb("rdma_get_cm_event")
    @Verb("rdma_ack_cm_event")
    public CmEvent await(CmId id, Duration timeout) throws RdmaException {
        Objects.requireNonNull(id, "id");
        if (id.channel() != this) {
            throw new IllegalArgumentException(id + " belongs to another event channel");
        }
        return take(id, timeout);
    }

    /**
     * Waits up to {@code timeout} for the next event of any id of this channel; null on timeout. A zero timeout
     * never waits: it takes what the fd has now (an event loop calls it so when the fd is readable).
     *
     * <p>Verbs: {@code rdma_get_cm_event}, {@code rdma_ack_cm_event}.
     *
     * @param timeout how long to wait; zero does not wait
     * @return the event, acknowledged (its data copied), or null if none came in time
     * @throws RdmaException with {@code rdma_get_cm_event}'s errno
     */
    @Verb("rdma_get_cm_event")
    @Verb("rdma_ack_cm_event")
    public CmEvent poll(Duration timeout) throws RdmaException {
        return take(null, timeout);
    }

    /**
     * Waits up to {@code timeout} for the next event of {@code id} and returns it if it is {@code expected} with
     * status 0.
     *
     * @param id       an id of this channel
     * @param expected the event type awaited
     * @param timeout  how long to wait
     * @return the event
     * @throws CmEventException another event came (REJECTED, UNREACHABLE, ADDR_ERROR...), or the expected one with an
     *                          error status: it carries the event
     * @throws CmTimeoutException no event of {@code id} within the timeout
     */
    public CmEvent expect(CmId id, CmEventType expected, Duration timeout) throws RdmaException {
        CmEvent event = await(id, timeout);
        if (event == null) {
            throw new CmTimeoutException("no rdma_cm event on " + id + " within " + timeout.toMillis()
                    + " ms (expected " + expected.cName() + ")");
        }
        if (!event.is(expected)) {
            throw new CmEventException(expected, event);
        }
        return event;
    }

    private CmEvent take(CmId id, Duration timeout) throws RdmaException {
        long timeoutNanos = timeout.isNegative() ? 0 : timeout.toNanos();
        long deadline = System.nanoTime() + timeoutNanos;
        CmEvent event;
        while (true) {
            int slice;
            synchronized (this) {
                event = takeOrWait(id, deadline);
                if (event != null) {
                    break;
                }
                long leftMillis = millisLeft(deadline);
                if (leftMillis <= 0 || timeoutNanos == 0) {
                    return null; // a zero timeout only takes what is there (an event loop's look when the fd is
                    // readable)
                }
                if (readerActive) {
                    continue; // takeOrWait waited one slice for the reader; look again
                }
                readerActive = true;
                slice = (int) Math.min(leftMillis, WAIT_SLICE_MILLIS);
            }
            // The reader waits in poll(2) without the monitor: the other waiters, the ids' close and this
            // channel's close all go on meanwhile. Only one reader at a time touches the fd and its scratch.
            try {
                readable.await(slice);
            } finally {
                synchronized (this) {
                    readerActive = false;
                    try {
                        if (!closeRequested()) {
                            readAvailable();
                        }
                    } finally {
                        notifyAll(); // the waiters look for their events; destroy() may go on
                    }
                }
            }
        }
        // outside the channel's monitor: may modify the QP
        event.id().delivered(event);
        return event;
    }

    // WaitNotInLoop: the loop is the caller's (take), which looks for the event again and checks the deadline after
    // every return of null, a spurious wakeup included
    /**
     * Under the monitor: the oldest pending event of {@code id} (reading the fd first if nobody is reading it), or
     * null after waiting one slice for the active reader to queue something (or when it is this thread's turn to
     * read).
     */
    @SuppressWarnings("WaitNotInLoop")
    private CmEvent takeOrWait(CmId id, long deadline) throws RdmaException {
        if (closeRequested()) {
            throw new IllegalStateException(describe() + " was closed while waiting for events");
        }
        checkOpen();
        if (id != null && id.closing()) {
            // describe(), not toString(): that takes the id's monitor, held by its close() waiting for ours
            throw new IllegalStateException(id.describe() + " was closed while waiting for its events");
        }
        CmEvent event = takePending(id);
        if (event != null) {
            return event;
        }
        if (!readerActive) {
            readAvailable(); // non-blocking: what arrived since the last reader left
            event = takePending(id);
            if (event != null) {
                notifyAll(); // others' events may have come with it
            }
            return event;
        }
        long leftMillis = millisLeft(deadline);
        if (leftMillis > 0) {
            try {
                wait(Math.min(leftMillis, WAIT_SLICE_MILLIS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RdmaException("interrupted while waiting for rdma_cm events on " + describe());
            }
        }
        return null;
    }

    private static long millisLeft(long deadline) {
        return (deadline - System.nanoTime() + 999_999L) / 1_000_000L;
    }

    private CmEvent takePending(CmId id) {
        for (Iterator<CmEvent> it = pending.iterator(); it.hasNext(); ) {
            CmEvent e = it.next();
            if (id == null || owner(e) == id) {
                it.remove();
                return e;
            }
        }
        return null;
    }

    /** A CONNECT_REQUEST belongs to its listening id, every other event to its id. */
    private static CmId owner(CmEvent e) {
        return e.type() == CmEventType.CONNECT_REQUEST && e.listenId() != null ? e.listenId() : e.id();
    }

    /** Reads, copies and acks every event the fd has now, queueing them. Holds this monitor. */
    private void readAvailable() throws RdmaException {
        while (true) {
            int rc = rdma_cma_h.rdma_get_cm_event(callState, handle, eventOut);
            if (rc != 0) {
                int errno = Native.errno(callState);
                if (errno == Errno.EAGAIN || errno == Errno.EINTR) {
                    return;
                }
                throw new RdmaException("rdma_get_cm_event", errno);
            }
            MemorySegment ev =
                    eventOut.get(ADDRESS, 0).reinterpret(rdma_cm_event.layout().byteSize());
            Copied copied = CmEventAck.copyThenAck(ev, this::copyOrOrphan, this::ack);
            if (copied.orphan().address() != 0) {
                rdma_cma_h.rdma_destroy_id(callState, copied.orphan());
            }
            if (copied.event() != null) {
                pending.addLast(copied.event());
            }
        }
    }

    /** An event as a Java value (null if for an id no longer ours), and a new id nobody will accept (else NULL). */
    private record Copied(CmEvent event, MemorySegment orphan) {}

    private Copied copyOrOrphan(MemorySegment ev) {
        CmEvent event = copy(ev);
        MemorySegment orphan = MemorySegment.NULL;
        if (event == null && ev.get(JAVA_INT, rdma_cm_event.event$OFFSET) == rdma_cma_h.RDMA_CM_EVENT_CONNECT_REQUEST) {
            // for a listening id closed meanwhile: nobody will accept or reject the new id
            orphan = ev.get(ADDRESS, rdma_cm_event.id$OFFSET);
        }
        return new Copied(event, orphan);
    }

    /** Holds this monitor (callState is the reader's scratch). */
    private void ack(MemorySegment ev) throws RdmaException {
        if (rdma_cma_h.rdma_ack_cm_event(callState, ev) != 0) {
            throw new RdmaException("rdma_ack_cm_event", Native.errno(callState));
        }
    }

    /** The event as a Java value; null if it is for an id that is no longer ours. */
    private CmEvent copy(MemorySegment ev) {
        CmEventType type = CmEventType.of(ev.get(JAVA_INT, rdma_cm_event.event$OFFSET));
        int status = ev.get(JAVA_INT, rdma_cm_event.status$OFFSET);
        long idAddress = ev.get(ADDRESS, rdma_cm_event.id$OFFSET).address();
        long listenAddress = ev.get(ADDRESS, rdma_cm_event.listen_id$OFFSET).address();
        CmId listenId = listenAddress == 0 ? null : ids.get(listenAddress);
        CmId id;
        if (type == CmEventType.CONNECT_REQUEST) {
            if (listenId == null) {
                return null;
            }
            id = register(ev.get(ADDRESS, rdma_cm_event.id$OFFSET), listenId.portSpace());
        } else {
            id = ids.get(idAddress);
            if (id == null) {
                return null;
            }
        }
        long conn = rdma_cm_event.param$conn$OFFSET;
        MemorySegment pdPointer = ev.get(ADDRESS, conn + rdma_conn_param.private_data$OFFSET);
        int pdLength = Byte.toUnsignedInt(ev.get(JAVA_BYTE, conn + rdma_conn_param.private_data_len$OFFSET));
        byte[] privateData = pdPointer.address() == 0 || pdLength == 0
                ? new byte[0]
                : pdPointer.reinterpret(pdLength).toArray(JAVA_BYTE);
        ConnectionParameters parameters = new ConnectionParameters(
                Byte.toUnsignedInt(ev.get(JAVA_BYTE, conn + rdma_conn_param.responder_resources$OFFSET)),
                Byte.toUnsignedInt(ev.get(JAVA_BYTE, conn + rdma_conn_param.initiator_depth$OFFSET)),
                Byte.toUnsignedInt(ev.get(JAVA_BYTE, conn + rdma_conn_param.retry_count$OFFSET)) & 7,
                Byte.toUnsignedInt(ev.get(JAVA_BYTE, conn + rdma_conn_param.rnr_retry_count$OFFSET)) & 7,
                privateData);
        int peerQpNumber = ev.get(JAVA_INT, conn + rdma_conn_param.qp_num$OFFSET);
        return new CmEvent(
                type, status, id, type == CmEventType.CONNECT_REQUEST ? listenId : null, parameters, peerQpNumber);
    }

    @Override
    protected void destroy() {
        // The reader's poll(2) uses the fd and the scratch arena: wait for it to leave (at most one slice; it sees
        // closeRequested and reads nothing more) before both go away.
        boolean interrupted = false;
        while (readerActive) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        pending.clear();
        ids.clear();
        rdma_cma_h.rdma_destroy_event_channel(handle);
        scratchArena.close();
    }

    @Override
    protected String describe() {
        return "rdma_cm event channel (fd " + fd + ")";
    }
}
