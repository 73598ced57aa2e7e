package org.panamardma.oncrpc;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Whether a call's message has wholly arrived when its service starts. An RPC-over-RDMA server pulls a call's Read
 * chunks by RDMA Read; for a service that says it can take such a call early ({@link RpcService#takesArrivingData}),
 * it posts the Reads and hands the call over before they complete, so that the procedure's work before its data
 * (an NFS WRITE resolving its file handle) overlaps the transfer, and the Reads' completion wakes the thread that
 * needs the data, not a thread that would then hand the call on. The bytes from the first Read chunk's position on
 * may then still be arriving: whoever reads them first waits for them ({@link #await}).
 *
 * <p>The transport binds the call's arrival while its service runs ({@link #during}); on any other transport, and
 * for a call that came whole, {@link #current()} is {@link #COMPLETE}. The transport itself waits for the arrival
 * before it replies or gives the memory back, whatever the service did: a failed or late Read is a lost connection
 * (RFC 8166 section 3.4.3), and the call is then not answered.
 */
public final class CallArrival {
    private static final ScopedValue<CallArrival> CURRENT = ScopedValue.newInstance();

    /** The whole message is there. */
    public static final CallArrival COMPLETE =
            new CallArrival(MemorySegment.NULL, Long.MAX_VALUE, CompletableFuture.completedFuture(null));

    private final MemorySegment message;
    private final long from;
    private final CompletableFuture<?> done;

    private CallArrival(MemorySegment message, long from, CompletableFuture<?> done) {
        this.message = message;
        this.from = from;
        this.done = done;
    }

    /**
     * The transport's side: {@code message}'s bytes from {@code from} on arrive when {@code done} completes (it
     * completes exceptionally if they never will: a failed Read, or one past its deadline).
     */
    public static CallArrival pending(MemorySegment message, long from, CompletableFuture<?> done) {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(done, "done");
        if (from < 0 || from > message.byteSize()) {
            throw new IllegalArgumentException("pending from " + from + " of a message of " + message.byteSize());
        }
        return new CallArrival(message, from, done);
    }

    /** {@return the arrival of the call whose service runs on this thread; {@link #COMPLETE} outside a transport's} */
    public static CallArrival current() {
        return CURRENT.isBound() ? CURRENT.get() : COMPLETE;
    }

    /** Runs {@code call} (the service) with this arrival current. */
    public <R, X extends Throwable> R during(ScopedValue.CallableOp<? extends R, X> call) throws X {
        return ScopedValue.where(CURRENT, this).call(call);
    }

    /** {@return whether every byte has arrived (or never will: {@link #await} then fails)} */
    public boolean isDone() {
        return done.isDone();
    }

    /**
     * {@return whether every byte of {@code part} is there: it lies in the message before the first byte still
     * arriving, or everything arrived}. A part outside the message is not known to be there.
     */
    public boolean arrived(MemorySegment part) {
        if (done.isDone() && !done.isCompletedExceptionally()) {
            return true;
        }
        Optional<MemorySegment> overlap = message.asOverlappingSlice(part);
        if (overlap.isEmpty() || overlap.get().byteSize() != part.byteSize()) {
            return part.byteSize() == 0;
        }
        // a slice of the message: its address less the message's is its offset there (a heap segment's too)
        return overlap.get().address() - message.address() + part.byteSize() <= from;
    }

    /**
     * Waits until every byte has arrived. The wait has the transport's deadline (it fails the arrival then), not one
     * of its own.
     *
     * @throws IOException if the bytes never will: the connection is lost, the call is not answered
     */
    public void await() throws IOException {
        try {
            done.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof TimeoutException t) {
                throw new IOException("the call's data did not arrive in time: " + t.getMessage(), t);
            }
            throw new IOException("the call's data did not arrive: " + cause, cause);
        } catch (CancellationException e) {
            throw new IOException("the call's data did not arrive: cancelled", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for the call's data", e);
        }
    }

    /**
     * Waits until every byte has arrived or never will, whichever; for a transport that must not give the memory back
     * while a transfer may still write it, and whose call already failed otherwise. Keeps an interrupt.
     */
    public void awaitQuietly() {
        boolean interrupted = false;
        while (!done.isDone()) {
            try {
                done.get();
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | CancellationException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
