package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
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
