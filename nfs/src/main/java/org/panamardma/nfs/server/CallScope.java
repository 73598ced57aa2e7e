package org.panamardma.nfs.server;

import java.util.ArrayList;
import java.util.List;
import org.panamardma.oncrpc.CallInput;
import org.panamardma.oncrpc.ReplyResources;

/**
 * One call's resources between the transport's thread and the OS thread that runs its procedure
 * ({@link CallerThreads}): the data buffer taken for it before it took a thread (so that no thread sits waiting for
 * a buffer), and what its results point into until the reply is sent (a READ's buffer), handed back to the
 * transport's {@link ReplyResources} scope, which releases it once the reply has left.
 *
 * <p>Whatever way the call ends, everything is released exactly once: handed over after success
 * ({@link #handOver}), released at once after a failure, or, when the transport stopped waiting for a call that was
 * running, released by the procedure's thread once the procedure is over ({@link #release}), never while it may
 * still write into the buffer.
 */
final class CallScope {
    private static final ScopedValue<CallScope> CURRENT = ScopedValue.newInstance();

    private final boolean zeroCopy;
    private final IoBuffers.Lease lease;
    private final AutoCloseable input;
    private final List<AutoCloseable> held = new ArrayList<>(1);

    /**
     * A scope for a call, on the transport's thread, while the transport runs the service: it keeps the call's input
     * memory too ({@link CallInput#retain()}: a WRITE's data over RPC-over-RDMA lies in the connection's registered
     * memory, and the procedure's system call reads it there), so that a procedure the transport stops waiting for
     * never writes from memory the transport gave to another call.
     *
     * @param lease the data buffer taken for the call, or null
     */
    CallScope(IoBuffers.Lease lease) {
        this.zeroCopy = ReplyResources.available();
        this.lease = lease;
        this.input = CallInput.retain();
    }

    /** Runs {@code op} in this scope (on the procedure's thread). */
    <T> T during(CallerThreads.Op<T> op) throws Exception {
        return ScopedValue.where(CURRENT, this).call(op::run);
    }

    private static CallScope current() {
        if (!CURRENT.isBound()) {
            throw new IllegalStateException("no call scope");
        }
        return CURRENT.get();
    }

    /**
     * Whether a procedure's results may point into memory it hands over ({@link #holdUntilSent}): the transport
     * keeps it until sent; otherwise the results must be copied to the heap.
     */
    static boolean zeroCopy() {
        return CURRENT.isBound() && CURRENT.get().zeroCopy;
    }

    /**
     * The data buffer taken for this call.
     *
     * @throws IllegalStateException if none was (the procedure did not declare its need)
     */
    static IoBuffers.Lease lease() {
        IoBuffers.Lease l = current().lease;
        if (l == null) {
            throw new IllegalStateException("no buffer was taken for this call");
        }
        return l;
    }

    /** Hands {@code resource} over, to be closed once the reply is sent. */
    static void holdUntilSent(AutoCloseable resource) {
        CallScope scope = current();
        synchronized (scope) {
            scope.held.add(resource);
        }
    }

    /**
     * On the transport's thread, after the procedure returned its results: what they point into goes to the
     * transport's scope (closed after sending), the rest is released now.
     */
    void handOver() {
        List<AutoCloseable> list;
        synchronized (this) {
            list = List.copyOf(held);
            held.clear();
        }
        for (AutoCloseable r : list) {
            if (ReplyResources.available()) {
                ReplyResources.holdUntilSent(r);
            } else {
                closeQuietly(r);
            }
        }
        if (lease != null && !list.contains(lease)) {
            lease.close();
        }
        closeQuietly(input); // the procedure is over; the transport keeps the input until it has replied
    }

    /** After a failure, or once an abandoned procedure is over: everything is released. */
    void release() {
        List<AutoCloseable> list;
        synchronized (this) {
            list = List.copyOf(held);
            held.clear();
        }
        list.forEach(CallScope::closeQuietly);
        if (lease != null) {
            lease.close();
        }
        closeQuietly(input);
    }

    private static void closeQuietly(AutoCloseable r) {
        if (r == null) {
            return;
        }
        try {
            r.close();
        } catch (Exception ignored) {
            // a lease's or an input's close does not fail
        }
    }
}
