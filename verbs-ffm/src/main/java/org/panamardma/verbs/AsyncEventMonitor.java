package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.ibv_async_event;
import org.panamardma.verbs.ffi.ibv_qp;
import org.panamardma.verbs.ffi.verbs_h;
import org.panamardma.verbs.internal.ReadableFd;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers a context's asynchronous events ({@code ibv_get_async_event}) to a listener, on a thread of its own.
 *
 * <p>The context's async fd is made non-blocking and waited on with poll(2) in slices, so closing the monitor ends
 * its thread within one slice. Each event is copied into an {@link AsyncEvent} and acked before the listener runs:
 * {@code ibv_destroy_qp}/{@code _cq}/{@code _srq} wait for the acks of their object's events, so holding one would
 * make a close hang. A listener that throws is logged and the monitor goes on.
 *
 * <p>One monitor per context at a time: the fd has one queue, and two readers would split the events between them.
 * Closing the context closes its monitor.
 */
public final class AsyncEventMonitor extends NativeResource {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncEventMonitor.class);
    static final int WAIT_SLICE_MILLIS = 50;

    private final Context context;
    private final Consumer<AsyncEvent> listener;
    private final Thread thread;
    private volatile boolean stopping;

    private AsyncEventMonitor(Context context, Consumer<AsyncEvent> listener) {
        super("async event monitor", context);
        this.context = context;
        this.listener = listener;
        this.thread = Thread.ofPlatform()
                .daemon(true)
                .name("rdma-async-" + context.deviceName())
                .unstarted(this::run);
    }

    static AsyncEventMonitor start(Context context, Consumer<AsyncEvent> listener) throws RdmaException {
        Objects.requireNonNull(listener, "listener");
        AsyncEventMonitor m = new AsyncEventMonitor(context, listener);
        // the fd must be non-blocking before the thread reads it; done here so that a failure is the caller's
        try (Arena arena = Arena.ofConfined()) {
            new ReadableFd<>(context.asyncFd(), "async event fd of " + context.deviceName(), arena, RdmaException::new);
        } catch (RdmaException e) {
            m.close();
            throw e;
        }
        m.thread.start();
        return m;
    }

    private void run() {
        try (Arena arena = Arena.ofConfined()) {
            ReadableFd<RdmaException> readable = new ReadableFd<>(
                    context.asyncFd(), "async event fd of " + context.deviceName(), arena, RdmaException::new);
            MemorySegment event = arena.allocate(ibv_async_event.layout());
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            while (!stopping) {
                if (!readable.await(WAIT_SLICE_MILLIS)) {
                    continue;
                }
                while (!stopping) {
                    AsyncEvent e = readOne(event, callState);
                    if (e == null) {
                        break;
                    }
                    try {
                        listener.accept(e);
                    } catch (RuntimeException | Error ex) {
                        LOG.warn("async event listener failed on " + e, ex);
                    }
                }
            }
        } catch (RdmaException | RuntimeException ex) {
            if (!stopping) {
                LOG.error(thread.getName() + " stopped reading async events", ex);
            }
        }
    }

    /** The next event copied and acked, or null when none is waiting. */
    private AsyncEvent readOne(MemorySegment event, MemorySegment callState) throws RdmaException {
        int rc;
        // under the context's monitor: it is not closed (nor its objects destroyed) while we read and ack
        synchronized (context) {
            if (context.isClosed()) {
                stopping = true;
                return null;
            }
            rc = verbs_h.ibv_get_async_event(callState, context.handle, event);
            if (rc != 0) {
                int errno = Native.errno(callState);
                if (errno == Errno.EAGAIN || errno == Errno.EINTR) {
                    return null;
                }
                throw new RdmaException("ibv_get_async_event(" + context.deviceName() + ")", errno);
            }
            try {
                return copy(event);
            } finally {
                verbs_h.ibv_ack_async_event(event);
            }
        }
    }

    private AsyncEvent copy(MemorySegment event) {
        int raw = event.get(JAVA_INT, ibv_async_event.event_type$OFFSET);
        AsyncEventType type = AsyncEventType.of(raw);
        int port = 0;
        int qpNumber = -1;
        Optional<NativeResource> subject = Optional.empty();
        switch (type.subject()) {
            case PORT -> port = event.get(JAVA_INT, ibv_async_event.element$port_num$OFFSET);
            case QUEUE_PAIR -> {
                MemorySegment qp = event.get(ADDRESS, ibv_async_event.element$OFFSET);
                if (qp.address() != 0) {
                    qpNumber = qp.reinterpret(ibv_qp.layout().byteSize()).get(JAVA_INT, ibv_qp.qp_num$OFFSET);
                    subject = context.tracked(qp.address());
                }
            }
            case COMPLETION_QUEUE ->
                subject = context.tracked(
                        event.get(ADDRESS, ibv_async_event.element$OFFSET).address());
            case SHARED_RECEIVE_QUEUE ->
                subject = context.tracked(
                        event.get(ADDRESS, ibv_async_event.element$OFFSET).address());
            default -> {}
        }
        return new AsyncEvent(type, raw, context.deviceName(), port, qpNumber, subject);
    }

    @Override
    protected void destroy() {
        stopping = true;
        if (Thread.currentThread() != thread) {
            try {
                thread.join(10L * WAIT_SLICE_MILLIS + 2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        context.monitorClosed(this);
    }

    @Override
    protected String describe() {
        return "async event monitor of " + context.deviceName();
    }
}
