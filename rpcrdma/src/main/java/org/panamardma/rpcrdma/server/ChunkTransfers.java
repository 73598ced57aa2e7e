package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.panamardma.rpcrdma.RdmaSegment;

/**
 * The RDMA operations the server side of RPC-over-RDMA needs from one connection, kept behind this interface so
 * that the protocol logic ({@link RpcRdmaCallHandler}) is tested on a host without a device.
 *
 * <p>Both methods block until the data has moved (or, for writes, until it is ordered before any later Send on the
 * same reliable connection). An {@link IOException} means the connection is unusable: the caller gives up the
 * call and lets the connection go (RFC 8166 section 3.4.3: an RDMA error is fatal to the connection).
 */
public interface ChunkTransfers {
    /**
     * RDMA READs the {@code segments} of one Read chunk, in order, into {@code destination}, which is exactly as
     * long as their summed lengths.
     *
     * @param segments the Read chunk's segments
     * @param destination where the data goes
     * @throws IOException if a Read failed or timed out: the connection is unusable
     */
    void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException;

    /**
     * Starts the RDMA READs of one Read chunk into {@code destination}, as {@link #read} does, and returns without
     * waiting for them: the future completes when the data is there, exceptionally if it never will be (a failed
     * Read, or one past its deadline: the connection is then unusable). Until it completed, {@code destination} may
     * still be written by the device. By default the Reads are done at once ({@link #read}).
     *
     * @param segments the Read chunk's segments
     * @param destination where the data goes
     * @return completed once the data is there
     * @throws IOException if the Reads could not be posted or (done at once) failed: the connection is unusable
     */
    default CompletableFuture<Void> startRead(List<RdmaSegment> segments, MemorySegment destination)
            throws IOException {
        read(segments, destination);
        return CompletableFuture.completedFuture(null);
    }

    /**
     * RDMA WRITEs {@code source} into {@code segments}, filling them in order; {@code source} is no longer than
     * their summed lengths. The data must be placed at the peer before the reply's Send is delivered (RC ordering
     * of an RDMA Write before a Send on the same queue pair suffices).
     *
     * @param source the data
     * @param segments the chunk's segments
     * @throws IOException if a Write failed or timed out: the connection is unusable
     */
    void write(MemorySegment source, List<RdmaSegment> segments) throws IOException;
}
