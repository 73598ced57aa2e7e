package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_cq;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * A completion queue. {@link #poll(WorkCompletions)} is the data path: one call through the provider's
 * {@code poll_cq}, nothing allocated. With a {@link CompletionChannel}, {@link #requestNotification(boolean)} arms
 * it for one event.
 */
public final class CompletionQueue extends NativeResource {
    final Context context;
    final MemorySegment handle;
    private final CompletionChannel channel;
    private final int capacity;
    private final MemorySegment pollCqFn;
    private final MemorySegment reqNotifyCqFn;

    private CompletionQueue(Context context, MemorySegment handle, CompletionChannel channel) {
        super("completion queue", channel == null ? new NativeResource[] {context} : new NativeResource[] {context, channel});
        this.context = context;
        this.handle = handle;
        this.channel = channel;
        this.capacity = handle.get(JAVA_INT, ibv_cq.cqe$OFFSET);
        this.pollCqFn = context.pollCqFn;
        this.reqNotifyCqFn = context.reqNotifyCqFn;
    }

    static CompletionQueue create(Context context, int capacity, CompletionChannel channel) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            MemorySegment cq = verbs_h.ibv_create_cq(callState, context.handle, capacity, MemorySegment.NULL,
                    channel == null ? MemorySegment.NULL : channel.handle, 0);
            if (cq.equals(MemorySegment.NULL)) {
                throw new RdmaException("ibv_create_cq(" + capacity + " entries on " + context.deviceName() + ")",
                        Native.errno(callState));
            }
            CompletionQueue q = new CompletionQueue(context, cq.reinterpret(ibv_cq.layout().byteSize()), channel);
            if (channel != null) {
                channel.attach(q);
            }
            return q;
        }
    }

    /** The number of entries the device gave the queue (at least what was asked). */
    public int capacity() {
        return capacity;
    }

    public Context context() {
        return context;
    }

    /**
     * Polls up to {@code completions.capacity()} completions into {@code completions} and returns how many
     * ({@link WorkCompletions#count()} too). Allocates nothing.
     */
    public int poll(WorkCompletions completions) throws RdmaException {
        int n;
        synchronized (this) {
            checkOpen();
            try {
                n = (int) VerbsOps.POLL_CQ.invokeExact(pollCqFn, handle, completions.capacity(), completions.array);
            } catch (Throwable t) {
                throw verbsError(t);
            }
        }
        if (n < 0) {
            completions.count(0);
            throw new RdmaException("ibv_poll_cq on " + context.deviceName(), Errno.EIO);
        }
        completions.count(n);
        return n;
    }

    /**
     * Arms the queue: the next completion (with {@code solicitedOnly}, the next solicited or error one) produces
     * one event on the channel. Poll again after arming: completions that arrived before it make no event.
     */
    public void requestNotification(boolean solicitedOnly) throws RdmaException {
        if (channel == null) {
            throw new IllegalStateException(describe() + " has no completion channel");
        }
        int rc;
        synchronized (this) {
            checkOpen();
            try {
                rc = (int) VerbsOps.REQ_NOTIFY_CQ.invokeExact(reqNotifyCqFn, handle, solicitedOnly ? 1 : 0);
            } catch (Throwable t) {
                throw verbsError(t);
            }
        }
        if (rc != 0) {
            throw new RdmaException("ibv_req_notify_cq on " + context.deviceName(), rc);
        }
    }

    public CompletionChannel channel() {
        return channel;
    }

    static RuntimeException verbsError(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    @Override
    protected void destroy() {
        if (channel != null) {
            channel.detach(this);
        }
        int rc = verbs_h.ibv_destroy_cq(handle);
        if (rc != 0) {
            throw new IllegalStateException("ibv_destroy_cq failed: " + Errno.name(rc));
        }
    }

    @Override
    protected String describe() {
        return "completion queue (" + capacity + " entries) on " + context.deviceName();
    }
}
