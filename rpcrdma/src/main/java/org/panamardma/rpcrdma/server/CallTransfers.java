package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.oncrpc.CallInput;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.memory.Lease;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.connection.RdmaConnection.ChainedWrite;

/**
 * The chunk transfers of one call on a device: RDMA Reads through the connection ({@link VerbsChunkTransfers}),
 * straight into the call assembled in the connection's pool ({@link #assembly}) or counted against the call's pinned
 * budget while they run; RDMA Writes staged, as svc_rdma_send_write_chunk
 * builds its R/W contexts: the data copied into a pooled buffer now (so the procedure's memory may go when the call
 * returns), the work requests collected for the reply ({@link #handOver}), to be posted before its Send. A staged
 * buffer keeps its share of the pinned budget until the reply's Send completes.
 *
 * <p>{@link #close()} gives back whatever was staged and not handed over (an error reply, a failed call).
 */
final class CallTransfers implements ChunkTransfers, AutoCloseable {
    private final VerbsChunkTransfers connection;
    private final CallMemory memory;
    private StagedWrites.Builder staged = new StagedWrites.Builder();
    /** The registered buffer the call is assembled in ({@link #assembly}), or null. */
    private Lease assembly;
    /** An RDMA Read into {@link #assembly} failed: the device may still write it. */
    private volatile boolean assemblyFaulted;
    /** The transport's and the procedures' use of {@link #assembly}; it goes back when the last ends. */
    private CallInput input;

    CallTransfers(VerbsChunkTransfers connection, CallMemory memory) {
        this.connection = connection;
        this.memory = memory;
    }

    /**
     * Memory to assemble a call of {@code bytes} in ({@link CallAssembler.Room}): a buffer of the connection's pool,
     * registered, so that the RDMA Reads of the call's chunks land where the procedure takes the data from
     * ({@link #read}), as svcrdma reads a call's chunks into the pages nfsd writes from; no copy after the Reads (it
     * was two: from the Reads' buffer into a heap call, and from there into native memory for the file's system
     * call). It is charged to the pinned budget and lent to the service ({@link #input()}) until the call and every
     * procedure that retained it are over. Taken from the heap budget as before: a second call assembly, a size the
     * pool has no class for, and a call whose assembly and largest reply by RDMA Write ({@code replyBytes}: its Write
     * list and Reply chunk, which the reply's staged Writes take from the same pinned budget while the call still
     * holds its assembly) would not fit the connection's pinned budget together, so that every call the budgets
     * were sized for can still be served.
     *
     * @param bytes the assembled call's size
     * @param replyBytes what the reply may RDMA-Write at most
     */
    MemorySegment assembly(long bytes, long replyBytes) throws IOException {
        if (assembly != null || !connection.pool().fits(bytes) || bytes > memory.pinnedLimit() - replyBytes) {
            return memory.heap(bytes);
        }
        Runnable charge = memory.pinBeyondCall(bytes);
        Lease lease;
        try {
            lease = connection.lease(bytes);
        } catch (IOException | RuntimeException e) {
            charge.run();
            throw e;
        }
        assembly = lease;
        input = CallInput.lentUntil(() -> {
            if (assemblyFaulted) {
                connection.quarantine(lease);
            } else {
                lease.release();
            }
            charge.run();
        });
        return lease.segment();
    }

    /** {@return the call's input memory as lent to the service, or null if the call was not assembled in the pool} */
    CallInput input() {
        return input;
    }

    @Override
    public void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
        Lease into = assembly;
        if (into != null && within(destination, into.segment())) {
            // straight into the assembled call: already charged with it
            try {
                connection.readInto(
                        segments, into, destination.address() - into.segment().address(), destination.byteSize());
            } catch (IOException | RuntimeException e) {
                assemblyFaulted = true;
                throw e;
            }
            return;
        }
        memory.pin(destination.byteSize());
        try {
            connection.read(segments, destination);
        } finally {
            memory.unpin(destination.byteSize());
        }
    }

    @Override
    public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
        if (source.byteSize() == 0) {
            return;
        }
        checkRoom(source, segments);
        Runnable charge = memory.pinBeyondCall(source.byteSize());
        Lease from;
        try {
            from = connection.lease(source.byteSize());
        } catch (IOException | RuntimeException e) {
            charge.run();
            throw e;
        }
        staged.onRelease(charge);
        staged.onRelease(from::release);
        MemoryRegion region = VerbsChunkTransfers.regionOf(from); // the slab's, registered when it was made
        MemorySegment.copy(source, 0, from.segment(), 0, source.byteSize());
        for (ChainedWrite w : writes(region, from.regionOffset(), source.byteSize(), segments)) {
            staged.add(w);
        }
    }

    private static boolean within(MemorySegment part, MemorySegment whole) {
        long at = part.address() - whole.address();
        return part.isNative() && at >= 0 && at + part.byteSize() <= whole.byteSize();
    }

    /** The caller's contract, checked before anything is staged. */
    static void checkRoom(MemorySegment source, List<RdmaSegment> segments) {
        long room = 0;
        for (RdmaSegment s : segments) {
            room += s.length();
        }
        if (room < source.byteSize()) {
            throw new IllegalArgumentException(source.byteSize() + " bytes for segments of " + room);
        }
    }

    /**
     * The WRITEs that put {@code bytes} of {@code from} at {@code start} into {@code segments}, filling them in order.
     * A zero-length segment takes nothing and the ones after it take the rest, as the reply's Write list reports
     * them ({@link WriteListPlacement#filled}): stopping there would report bytes never written.
     */
    static List<ChainedWrite> writes(MemoryRegion from, long start, long bytes, List<RdmaSegment> segments) {
        List<ChainedWrite> writes = new ArrayList<>(segments.size());
        long at = 0;
        for (RdmaSegment s : segments) {
            long n = Math.min(s.length(), bytes - at);
            if (n == 0) {
                continue;
            }
            writes.add(new ChainedWrite(from, start + at, (int) n, s.offset(), s.handle()));
            at += n;
        }
        return writes;
    }

    /**
     * @param path how the call is answered
     * @return the staged writes for a reply that carries them (Write list, Reply chunk); for any other answer they
     *         are given back now and nothing is written
     */
    StagedWrites handOver(ReplyPath path) {
        StagedWrites result = staged.build();
        staged = new StagedWrites.Builder();
        if (path == ReplyPath.WRITE_LIST || path == ReplyPath.REPLY_CHUNK) {
            return result;
        }
        result.release();
        return StagedWrites.NONE;
    }

    /** Gives back what was staged and not handed over, and ends the transport's use of the assembled call. */
    @Override
    public void close() {
        if (!staged.isEmpty()) {
            staged.build().release();
            staged = new StagedWrites.Builder();
        }
        if (input != null) {
            input.close();
        }
    }
}
