package org.panamardma.rpcrdma;

import java.util.Objects;

/**
 * RDMA_NOMSG: chunk lists only; the RPC message itself moves by RDMA, in a position-zero Read chunk (long call)
 * or the Reply chunk (long reply). Draft-ietf-nfsv4-rpcrdma-08 section 5; RFC 8166 section 3.5.3.
 *
 * @param xid the XID of the RPC message carried in the chunk
 * @param credits the credits requested or granted
 * @param chunks the chunk lists; never all empty, since the message must be somewhere
 */
public record RdmaNoMsg(int xid, int credits, ChunkLists chunks) implements RpcRdmaHeader.WithChunks {
    /**
     * Checks the chunk lists are there.
     *
     * @throws NullPointerException if {@code chunks} is null
     */
    public RdmaNoMsg {
        Objects.requireNonNull(chunks, "chunks");
    }

    @Override
    public RdmaProcedure procedure() {
        return RdmaProcedure.RDMA_NOMSG;
    }
}
