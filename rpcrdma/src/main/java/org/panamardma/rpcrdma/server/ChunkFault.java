package org.panamardma.rpcrdma.server;

/**
 * A call whose chunks cannot be used, found after its header decoded: answered with RDMA_ERROR / ERR_CHUNK
 * (RFC 8166 section 4.5.2; draft-ietf-nfsv4-rpcrdma-08 section 4.2: "when other decoding errors are detected in
 * the header or chunks ... the RPC/RDMA error code ERR_CHUNK MUST be returned").
 */
public final class ChunkFault extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * A chunk the server cannot process.
     *
     * @param message what is wrong with it
     */
    public ChunkFault(String message) {
        super(message);
    }
}
