package org.panamardma.rpcrdma;

import java.util.Objects;

/**
 * RDMA_MSGP, of draft-ietf-nfsv4-rpcrdma-08 only (sections 3.9 and 4.3, {@code rpc_rdma_header_padded}): like
 * RDMA_MSG, but opaque data of {@code threshold} bytes or more in the RPC message that follows is padded to
 * {@code alignment}. RFC 8166 section 4.6.1 retires it: decoded so a transport can refuse it knowingly, never sent
 * to RFC 8166 peers.
 *
 * @param xid the XID
 * @param credits the credits requested or granted
 * @param alignment {@code rdma_align}, the padding alignment, as its unsigned 32 bits
 * @param threshold {@code rdma_thresh}, the opaque size at or above which padding applies, as its unsigned 32 bits
 * @param chunks the chunk lists
 */
public record RdmaMsgp(int xid, int credits, int alignment, int threshold, ChunkLists chunks)
        implements RpcRdmaHeader.WithChunks {
    /**
     * Checks the chunk lists are there.
     *
     * @throws NullPointerException if {@code chunks} is null
     */
    public RdmaMsgp {
        Objects.requireNonNull(chunks, "chunks");
    }

    @Override
    public RdmaProcedure procedure() {
        return RdmaProcedure.RDMA_MSGP;
    }
}
