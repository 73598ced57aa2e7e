package org.panamardma.rpcrdma;

import java.util.Objects;

/**
 * RDMA_MSG: chunk lists, followed in the same Send by the RPC message (draft-ietf-nfsv4-rpcrdma-08 section 4.1;
 * RFC 8166 section 4.2.4).
 *
 * @param xid the XID of the RPC message that follows
 * @param credits the credits requested or granted
 * @param chunks the chunk lists
 */
public record RdmaMsg(int xid, int credits, ChunkLists chunks) implements RpcRdmaHeader.WithChunks {
    /**
     * Checks the chunk lists are there.
     *
     * @throws NullPointerException if {@code chunks} is null
     */
    public RdmaMsg {
        Objects.requireNonNull(chunks, "chunks");
    }

    @Override
    public RdmaProcedure procedure() {
        return RdmaProcedure.RDMA_MSG;
    }
}
