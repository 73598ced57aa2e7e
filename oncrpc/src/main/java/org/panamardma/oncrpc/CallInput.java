package org.panamardma.oncrpc;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The memory a call's message and arguments lie in, when the transport lends its own: an RPC-over-RDMA server
 * assembles a call with Read chunks in registered memory the RDMA Reads land in, and hands the service slices of it
 * (an NFS WRITE's data, which the file system then takes from there, as knfsd writes from the pages svcrdma read
 * into), memory the transport reuses once the call is over ({@link RpcService.Incoming#message()}: valid only while
 * the service runs).
 *
 * <p>A procedure that may go on after its call is over (a procedure thread the transport stopped waiting for, whose
 * system call still reads the data) keeps the memory with {@link #retain()}, on the transport's thread while the
 * service runs; the transport reuses it only after every retention and its own use are over. Outside such a scope
 * (the message is in memory the garbage collector owns: TCP, an inline call, a test) there is nothing to keep and
 * {@link #retain()} returns null.
 */
public final class CallInput {
    private static final ScopedValue<CallInput> CURRENT = ScopedValue.newInstance();

    private final Runnable release;
    /** The transport's use and each retention; the memory goes back when it reaches 0. */
    private final AtomicInteger uses = new AtomicInteger(1);
    /** {@link #close()} ended the transport's use. */
    private final AtomicBoolean transportDone = new AtomicBoolean();

    private CallInput(Runnable release) {
        this.release = release;
    }

    /**
     * The transport's side: a call's input memory, in use by the transport until {@link #close()}.
     *
     * @param release gives the memory back, once, on the thread of the last use to end
     * @return the input, to run the service {@link #during}
     */
    public static CallInput lentUntil(Runnable release) {
        return new CallInput(Objects.requireNonNull(release, "release"));
    }

    /**
     * Runs {@code call} (the service) with this input current, so that its procedures may {@link #retain()} it.
     *
     * @param <R> the result type of {@code call}
     * @param <X> the exception {@code call} may throw
     * @param call what runs the service
     * @return what {@code call} returned
     * @throws X what {@code call} threw
     */
    public <R, X extends Throwable> R during(ScopedValue.CallableOp<? extends R, X> call) throws X {
        return ScopedValue.where(CURRENT, this).call(call);
    }

    /**
     * The procedure's side, on the thread the transport runs the service on: keeps the current call's input memory
     * until the returned handle is closed (once, from any thread; a second close does nothing).
     *
     * @return the handle, or null if the input is not the transport's to reuse (nothing to keep)
     */
    public static AutoCloseable retain() {
        if (!CURRENT.isBound()) {
            return null;
        }
        CallInput input = CURRENT.get();
        if (input.uses.getAndIncrement() <= 0) {
            input.uses.decrementAndGet();
            throw new IllegalStateException("the call's input was already given back");
        }
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true)) {
                input.endUse();
            }
        };
    }

    /** The transport's use is over; the memory goes back now or with the last retention. Idempotent per input. */
    public void close() {
        if (transportDone.compareAndSet(false, true)) {
            endUse();
        }
    }

    private void endUse() {
        if (uses.decrementAndGet() == 0) {
            release.run();
        }
    }
}
