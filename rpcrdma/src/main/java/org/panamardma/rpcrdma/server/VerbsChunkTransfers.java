package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.memory.BufferPool;
import org.panamardma.rpcrdma.memory.Lease;
import org.panamardma.rpcrdma.memory.LocalRegistrar;
import org.panamardma.rpcrdma.memory.Registration;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.RdmaConnection;

/**
 * {@link ChunkTransfers} over an {@link RdmaConnection}, with the connection's {@link BufferPool#forReplies pool}
 * (registered with local rights only): the receive side's RDMA Reads land in a pooled buffer and are waited for (the
 * call cannot be decoded before its Read chunks arrived: svc_rdma_process_read_list), untimed, their deadlines
 * enforced by the server's watch ({@link TransferWaits}); a call's transfers
 * ({@link CallTransfers#assembly}) assemble the call in such a buffer, so its Reads land in place, other reads are
 * copied out. The reply side does not write here: each call stages its writes ({@link #forCall}) and they go to the
 * device chained before the reply's Send. Nothing is registered per call once the pool holds buffers of the sizes the
 * traffic uses.
 *
 * <p>A buffer whose transfer failed or timed out may still be written by the device until the queue pair is gone:
 * it is kept out of the pool and given back only by {@link #close()}, after the connection closed.
 */
final class VerbsChunkTransfers implements ChunkTransfers, AutoCloseable {
    private final RdmaConnection connection;
    private final TransferDeadline deadline;
    private final BufferPool pool;
    private final ConcurrentLinkedQueue<Lease> quarantined = new ConcurrentLinkedQueue<>();
    /** The transfers waited for, with their deadlines, which the server's watch enforces. */
    private final TransferWaits waits = new TransferWaits();

    private volatile boolean closed;

    /**
     * @param largest the largest transfer (the largest call or reply)
     * @param idleBytes registered memory the pool keeps while no call uses it
     */
    VerbsChunkTransfers(RdmaConnection connection, TransferDeadline deadline, long largest, long idleBytes) {
        this.connection = connection;
        this.deadline = deadline;
        // a LocalRegistrar: the server's memory is registered with local rights only, the peer gets no key to it
        this.pool = BufferPool.forReplies(
                connection.name() + " chunk pool",
                LocalRegistrar.of(connection.protectionDomain()),
                largest,
                idleBytes);
    }

    BufferPool pool() {
        return pool;
    }

    /** The transfers of one call: its reads through here, its writes staged for its reply. */
    CallTransfers forCall(CallMemory memory) {
        return new CallTransfers(this, memory);
    }

    @Override
    public void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
        if (destination.byteSize() == 0) {
            return;
        }
        Lease sink = lease(destination.byteSize());
        boolean done = false;
        try {
            readInto(segments, sink, 0, destination.byteSize());
            MemorySegment.copy(sink.segment(), 0, destination, 0, destination.byteSize());
            done = true;
        } finally {
            if (done) {
                sink.release();
            } else {
                quarantined.add(sink);
            }
        }
    }

    /**
     * RDMA READs the {@code segments} of one Read chunk, in order, into {@code sink} from its byte {@code at}, and
     * waits for them ({@link TransferDeadline} for {@code bytes}). On failure the sink may still be written by the
     * device: the caller gives it to {@link #quarantine}, not back to the pool.
     */
    void readInto(List<RdmaSegment> segments, Lease sink, long at, long bytes) throws IOException {
        List<CompletableFuture<Void>> posted = new ArrayList<>(segments.size());
        long to = at;
        for (RdmaSegment s : segments) {
            if (s.length() > 0) {
                posted.add(
                        connection.read(regionOf(sink), sink.regionOffset() + to, s.length(), s.offset(), s.handle()));
            }
            to += s.length();
        }
        waits.await(posted, "RDMA Read", deadline.millisFor(bytes));
    }

    /** Keeps {@code lease}, which a failed transfer may still reach, out of the pool until {@link #close()}. */
    void quarantine(Lease lease) {
        quarantined.add(lease);
        if (closed) {
            drainQuarantine(); // the queue pair is gone: nothing reaches it any more
        }
    }

    /**
     * Writes at once, waiting for the Writes (for a caller outside a call; calls stage theirs with
     * {@link #forCall}).
     */
    @Override
    public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
        if (source.byteSize() == 0) {
            return;
        }
        CallTransfers.checkRoom(source, segments);
        Lease from = lease(source.byteSize());
        boolean done = false;
        try {
            MemorySegment.copy(source, 0, from.segment(), 0, source.byteSize());
            List<CompletableFuture<Void>> posted = new ArrayList<>(segments.size());
            for (RdmaConnection.ChainedWrite w :
                    CallTransfers.writes(regionOf(from), from.regionOffset(), source.byteSize(), segments)) {
                posted.add(connection.write(w.mr(), w.offset(), w.length(), w.remoteAddress(), w.rkey()));
            }
            waits.await(posted, "RDMA Write", deadline.millisFor(source.byteSize()));
            done = true;
        } finally {
            if (done) {
                from.release();
            } else {
                quarantined.add(from);
            }
        }
    }

    Lease lease(long bytes) throws IOException {
        try {
            return pool.lease(bytes);
        } catch (RdmaException e) {
            throw io(e);
        }
    }

    /** Gives back what failed transfers held and closes the pool: after the connection (its queue pair) is gone. */
    @Override
    public void close() {
        closed = true;
        drainQuarantine();
        pool.close();
    }

    private void drainQuarantine() {
        Lease l;
        while ((l = quarantined.poll()) != null) {
            l.release();
        }
    }

    /**
     * Fails the waits for transfers past their deadline as of {@code now}: the server's watch calls it
     * ({@link TransferWaits}).
     *
     * @return how many it failed
     */
    int expireOverdue(long now) {
        return waits.expireOverdue(now);
    }

    /** {@return the device region a lease's transfers are posted from (its slab's, registered when made)} */
    static MemoryRegion regionOf(Lease lease) throws IOException {
        try {
            return Registration.region(lease.region());
        } catch (RdmaException e) {
            throw io(e);
        }
    }

    static IOException io(RdmaException e) {
        return new IOException(e.getMessage(), e);
    }
}
