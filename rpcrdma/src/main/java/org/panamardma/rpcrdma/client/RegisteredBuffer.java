package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import org.panamardma.rpcrdma.memory.Lease;

/**
 * A buffer leased from a {@link RegisteredBufferPool}: native memory of the client's. Hand {@link #segment()} (or a
 * slice of it) to a call as DDP-eligible argument data ({@link org.panamardma.xdr.XdrEncoder#putEligibleOpaque}) or
 * as a placement target ({@link ReplyExpectation#placementTargets()}): the call exposes exactly that slice to the
 * server, for the call only, without a copy (and, with memory windows, without a registration per call).
 *
 * <p>Release it once ({@link #release()} or {@link #close()}); a second release, and {@link #segment()} after the
 * release, throw {@link IllegalStateException}, as does a call given a segment of a released buffer. A release while
 * a call still uses the buffer (one that timed out after it was sent: the server may still read or write it) takes
 * effect when that call's memory is let go, so the buffer is never handed to another lease while the server may
 * still access it. Not thread-safe as a handle: release it from one thread.
 */
public final class RegisteredBuffer implements AutoCloseable {
    final Lease lease;

    RegisteredBuffer(Lease lease) {
        this.lease = lease;
    }

    /**
     * {@return the buffer's memory, as large as was asked for (its {@link #capacity()} may be more)}
     *
     * @throws IllegalStateException if the buffer was released, or its pool closed
     */
    public MemorySegment segment() {
        return lease.segment();
    }

    /** {@return the size of the buffer's size class: how much memory it holds} */
    public long capacity() {
        return lease.capacity();
    }

    /**
     * Returns the buffer to its pool.
     *
     * @throws IllegalStateException if it was released already
     */
    public void release() {
        if (!lease.release()) {
            throw new IllegalStateException(lease + " released twice");
        }
    }

    /** {@link #release()}. */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return lease.toString();
    }
}
