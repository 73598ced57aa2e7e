package org.panamardma.rpcrdma;

/**
 * An RPC-over-RDMA version 1 transport header ({@code rdma_msg}: draft-ietf-nfsv4-rpcrdma-08 section 4.3,
 * RFC 8166 section 4.1). The version is not a field: every header this library builds or accepts is version
 * {@value #VERSION}; the decoder reports any other version as {@link HeaderFault#VERSION_MISMATCH}.
 */
public sealed interface RpcRdmaHeader permits RpcRdmaHeader.WithChunks, RdmaDone, RdmaError {
    /** The protocol version (draft section 4.1 item 2; RFC 8166 section 4.2.2). */
    int VERSION = 1;

    /** {@return the XID, which mirrors the RPC message's (draft section 4.1 item 1)} */
    int xid();

    /**
     * {@return the credit value: requested in calls, granted in replies (draft section 3.3; RFC 8166 section 3.3.1),
     *         an unsigned 32-bit number held as its bits}
     */
    int credits();

    /** {@return the message type} */
    RdmaProcedure procedure();

    /** A header that carries chunk lists: RDMA_MSG, RDMA_NOMSG or RDMA_MSGP. */
    sealed interface WithChunks extends RpcRdmaHeader permits RdmaMsg, RdmaNoMsg, RdmaMsgp {
        /** {@return the Read list, Write list and Reply chunk} */
        ChunkLists chunks();
    }
}
