package org.panamardma.rpcrdma;

/**
 * RDMA_DONE, of draft-ietf-nfsv4-rpcrdma-08 only (sections 3.8 and 4.1): the client tells the server it has read
 * the Read chunks of a reply, so the server may release them. No body. RFC 8166 section 4.6.2 retires it along with
 * Read chunks in replies.
 *
 * @param xid the XID of the reply whose chunks were read
 * @param credits the credit value
 */
public record RdmaDone(int xid, int credits) implements RpcRdmaHeader {
    @Override
    public RdmaProcedure procedure() {
        return RdmaProcedure.RDMA_DONE;
    }
}
