package org.panamardma.rpcrdma;

/**
 * The message type of a transport header, {@code rdma_proc} (draft-ietf-nfsv4-rpcrdma-08 sections 4.1 and 4.3;
 * RFC 8166 section 4.2.4).
 */
public enum RdmaProcedure {
    /** Chunk lists, then the RPC message. */
    RDMA_MSG(0),
    /** Chunk lists only; the RPC message travels in a chunk (a long call or long reply). */
    RDMA_NOMSG(1),
    /**
     * Padding parameters, chunk lists, then the RPC message with padded opaque data (draft section 3.9). Retired
     * by RFC 8166 section 4.6.1: never implemented, not to be sent to RFC 8166 peers.
     */
    RDMA_MSGP(2),
    /**
     * The client's signal that it finished reading a reply's Read chunks (draft section 3.8). Retired by RFC 8166
     * section 4.6.2 together with Read chunks in replies.
     */
    RDMA_DONE(3),
    /** A transport header error report: ERR_VERS or ERR_CHUNK. */
    RDMA_ERROR(4);

    private final int value;

    RdmaProcedure(int value) {
        this.value = value;
    }

    /** {@return the wire value} */
    public int value() {
        return value;
    }

    /**
     * {@return the constant for a wire value, or {@code null} if none is defined}
     *
     * @param value the procedure's wire value
     */
    public static RdmaProcedure fromValue(int value) {
        return value >= 0 && value < values().length ? values()[value] : null;
    }
}
