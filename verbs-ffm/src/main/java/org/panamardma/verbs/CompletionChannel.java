package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.ibv_comp_channel;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * A completion channel: a file descriptor on which armed completion queues signal completions, so a thread can
 * sleep instead of busy polling. The usual loop: poll the CQ dry, {@link CompletionQueue#requestNotification
 * arm it}, poll once more (completions that raced the arming make no event), then {@link #await(long) wait}.
 *
 * <p>Verb of {@link #close()}: {@code ibv_destroy_comp_channel}.
 */
@Verb("ibv_destroy_comp_channel")
public final class CompletionChannel extends NativeResource {
    /** How long one wait holds the channel before re-checking for close: bounds how long close() waits. */
    private static final int WAIT_SLICE_MILLIS = 100;

    final Context context;
    final MemorySegment handle;
    private final int fd;
    /**
     * The CQs attached, as an array replaced on attach/detach: {@link #await} walks it by index, so that taking an
     * event allocates nothing (an event loop takes one per wake-up).
     */
    private volatile CompletionQueue[] queues = new CompletionQueue[0];

    private final Arena scratchArena = Arena.ofShared();
    private final org.panamardma.verbs.internal.ReadableFd readable;
    private final MemorySegment cqOut;
    private final MemorySegment contextOut;
    private final MemorySegment callState;
    /** Whether a thread is in poll(2) on the fd, outside the monitor; guarded by this. */
    private boolean readerActive;

    private CompletionChannel(Context context, MemorySegment handle) throws RdmaException {
        super("completion channel", context);
        this.context = context;
        this.handle = handle;
        this.fd = handle.get(JAVA_INT, ibv_comp_channel.fd$OFFSET);
        this.cqOut = scratchArena.allocate(ADDRESS);
        this.contextOut = scratchArena.allocate(ADDRESS);
        this.callState = scratchArena.allocate(Native.CALL_STATE);
        // non-blocking, so that ibv_get_cq_event never blocks past our own poll(2) with its timeout
        this.readable = new org.panamardma.verbs.internal.ReadableFd(fd, "completion channel", scratchArena);
    }

    static CompletionChannel create(Context context) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cs = arena.allocate(Native.CALL_STATE);
            MemorySegment ch = verbs_h.ibv_create_comp_channel(cs, context.handle);
            if (ch.equals(MemorySegment.NULL)) {
                throw new RdmaException("ibv_create_comp_channel(" + context.deviceName() + ")", Native.errno(cs));
            }
            MemorySegment handle = ch.reinterpret(ibv_comp_channel.layout().byteSize());
            try {
                return new CompletionChannel(context, handle);
            } catch (RdmaException | RuntimeException e) {
                verbs_h.ibv_destroy_comp_channel(handle);
                throw e;
            }
        }
    }

    void attach(CompletionQueue cq) {
        synchronized (queueLock) {
            CompletionQueue[] q = java.util.Arrays.copyOf(queues, queues.length + 1);
            q[q.length - 1] = cq;
            queues = q;
        }
    }

    void detach(CompletionQueue cq) {
        synchronized (queueLock) {
            queues = java.util.Arrays.stream(queues).filter(q -> q != cq).toArray(CompletionQueue[]::new);
        }
    }

    private final Object queueLock = new Object();

    /** {@return the channel's file descriptor, for integration with an event loop (it is non-blocking)} */
    public int fd() {
        return fd;
    }

    /**
     * Waits up to {@code timeoutMillis} (0: do not wait) for a completion event, acknowledges it and returns the
     * queue that raised it, or null on timeout. The queue must be re-armed to raise another event.
     *
     * <p>Verbs: {@code ibv_get_cq_event}, {@code ibv_ack_cq_events}.
     *
     * @param timeoutMillis the longest wait in milliseconds; 0 does not wait
     * @return the armed queue that raised the event, or null if none did in time
     * @throws RdmaException with {@code ibv_get_cq_event}'s errno, or if the thread was interrupted while waiting (its
     *                       interrupt status is set again)
     * @throws IllegalStateException if the channel is closed, or closed while waiting
     */
    @Verb("ibv_get_cq_event")
    @Verb("ibv_ack_cq_events")
    public CompletionQueue await(long timeoutMillis) throws RdmaException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            int slice;
            synchronized (this) {
                if (closeRequested()) {
                    throw new IllegalStateException(describe() + " was closed while waiting");
                }
                checkOpen();
                CompletionQueue cq = tryGetEvent();
                if (cq != null) {
                    return cq;
                }
                long leftMillis = (deadline - System.nanoTime()) / 1_000_000L;
                if (leftMillis <= 0) {
                    return null;
                }
                slice = (int) Math.min(leftMillis, WAIT_SLICE_MILLIS);
                if (readerActive) {
                    // another thread is in poll(2) on the fd: wait for it to come out, then look again
                    try {
                        wait(slice);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new RdmaException("interrupted while waiting on the " + describe());
                    }
                    continue;
                }
                readerActive = true;
            }
            // poll(2) without the monitor, so that other waiters, the CQs' close and this channel's close go on
            try {
                readable.await(slice);
            } finally {
                synchronized (this) {
                    readerActive = false;
                    notifyAll();
                }
            }
        }
    }

    private CompletionQueue tryGetEvent() throws RdmaException {
        int rc = verbs_h.ibv_get_cq_event(callState, handle, cqOut, contextOut);
        if (rc != 0) {
            int errno = Native.errno(callState);
            if (errno == Errno.EAGAIN) {
                return null;
            }
            throw new RdmaException("ibv_get_cq_event", errno);
        }
        long cqAddress = cqOut.get(JAVA_LONG, 0); // the pointer as a number: no MemorySegment made
        CompletionQueue[] attached = queues;
        for (int i = 0; i < attached.length; i++) {
            CompletionQueue cq = attached[i];
            if (cq.handle.address() == cqAddress) {
                verbs_h.ibv_ack_cq_events(cq.handle, 1);
                return cq;
            }
        }
        // a queue of this channel that is being destroyed: its event is acked by nobody else
        verbs_h.ibv_ack_cq_events(cqOut.get(ADDRESS, 0), 1);
        return null;
    }

    @Override
    protected void destroy() {
        // the reader's poll(2) uses the fd and the scratch arena: let it leave (at most one slice) first
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
        try {
            int rc = verbs_h.ibv_destroy_comp_channel(handle);
            if (rc != 0) {
                throw new IllegalStateException("ibv_destroy_comp_channel failed: " + Errno.name(rc));
            }
        } finally {
            scratchArena.close();
        }
    }

    @Override
    protected String describe() {
        return "completion channel on " + context.deviceName();
    }
}
