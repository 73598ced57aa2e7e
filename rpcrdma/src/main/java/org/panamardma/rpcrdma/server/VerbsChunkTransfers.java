package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.RdmaConnection;

/**
 * {@link ChunkTransfers} over an {@link RdmaConnection}: each transfer registers a region of its size (local write
 * only: the client never touches server memory; an RDMA Write from native memory registers that memory in place,
 * read-only), posts one RDMA Read or Write per segment, waits for them all and deregisters. Registering per transfer costs a registration per chunk; it keeps a connection's memory bounded by
 * what its calls in flight move, and nothing stays registered once a call ends.
 */
final class VerbsChunkTransfers implements ChunkTransfers {
    private final RdmaConnection connection;
    private final TransferDeadline deadline;

    VerbsChunkTransfers(RdmaConnection connection, TransferDeadline deadline) {
        this.connection = connection;
        this.deadline = deadline;
    }

    @Override
    public void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
        if (destination.byteSize() == 0) {
            return;
        }
        try (MemoryRegion mr = connection.protectionDomain().allocate(destination.byteSize(),
                Set.of(Access.LOCAL_WRITE))) {
            List<CompletableFuture<Void>> posted = new ArrayList<>(segments.size());
            long at = 0;
            for (RdmaSegment s : segments) {
                if (s.length() > 0) {
                    posted.add(connection.read(mr, at, s.length(), s.offset(), s.handle()));
                }
                at += s.length();
            }
            await(posted, "RDMA Read", deadline.millisFor(destination.byteSize()));
            MemorySegment.copy(mr.segment(), 0, destination, 0, destination.byteSize());
        }
    }

    @Override
    public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
        if (source.byteSize() == 0) {
            return;
        }
        long room = 0;
        for (RdmaSegment s : segments) {
            room += s.length();
        }
        if (room < source.byteSize()) { // the caller's contract; checked before anything is posted
            throw new IllegalArgumentException(source.byteSize() + " bytes for segments of " + room);
        }
        try (MemoryRegion mr = sourceRegion(source)) {
            List<CompletableFuture<Void>> posted = new ArrayList<>(segments.size());
            long at = 0;
            for (RdmaSegment s : segments) {
                long n = Math.min(s.length(), source.byteSize() - at);
                if (n == 0) {
                    // a zero-length segment takes nothing and the ones after it take the rest, as the reply's
                    // Write list reports them (WriteListPlacement.filled): stopping here would report bytes never
                    // written
                    continue;
                }
                posted.add(connection.write(mr, at, (int) n, s.offset(), s.handle()));
                at += n;
            }

            // Waiting is what lets the region go; it also orders the data before the reply's Send.
            await(posted, "RDMA Write", deadline.millisFor(source.byteSize()));
        }
    }

    /**
     * The region an RDMA Write goes out from: native memory is registered where it is (no access flags: the
     * device only reads it), so data the upper layer placed in native memory (an NFS server's READ, read from the
     * file into its own buffer) leaves without another copy; heap memory, which the device cannot address, is
     * copied into a region of its own.
     */
    private MemoryRegion sourceRegion(MemorySegment source) throws RdmaException {
        if (source.isNative()) {
            return connection.protectionDomain().register(source, Set.of());
        }
        MemoryRegion mr = connection.protectionDomain().allocate(source.byteSize(), Set.of(Access.LOCAL_WRITE));
        MemorySegment.copy(source, 0, mr.segment(), 0, source.byteSize());
        return mr;
    }

    /**
     * Waits for the transfers of one chunk, no longer than {@code timeoutMillis} (their {@link TransferDeadline}): a
     * timeout is an {@link IOException} caused by a {@link TimeoutException}, and the connection is then closed
     * (which flushes what is still posted before the region goes).
     */
    static void await(List<CompletableFuture<Void>> posted, String what, long timeoutMillis) throws IOException {
        try {
            CompletableFuture.allOf(posted.toArray(CompletableFuture[]::new)).get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IOException(what + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(what + " did not complete in " + timeoutMillis + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " interrupted", e);
        }
    }

    static IOException io(RdmaException e) {
        return new IOException(e.getMessage(), e);
    }
}
