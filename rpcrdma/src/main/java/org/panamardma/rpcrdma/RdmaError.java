package org.panamardma.rpcrdma;

import java.util.List;

/**
 * RDMA_ERROR: the responder could not process a transport header (draft-ietf-nfsv4-rpcrdma-08 section 4.2;
 * RFC 8166 section 4.5). No RPC message follows.
 */
public sealed interface RdmaError extends RpcRdmaHeader {
    /** {@code ERR_VERS}. */
    int ERR_VERS = 1;
    /** {@code ERR_CHUNK}. */
    int ERR_CHUNK = 2;

    @Override
    default RdmaProcedure procedure() {
        return RdmaProcedure.RDMA_ERROR;
    }

    /** {@return the {@code rdma_err} code} */
    int code();

    /**
     * ERR_VERS: the header's version is not supported; the inclusive range that is follows (RFC 8166 section
     * 4.5.1).
     *
     * @param xid the XID of the rejected message
     * @param credits the credit value
     * @param low the lowest version supported
     * @param high the highest version supported
     */
    record VersionMismatch(int xid, int credits, int low, int high) implements RdmaError {
        @Override
        public int code() {
            return ERR_VERS;
        }
    }

    /**
     * ERR_CHUNK: the header or its chunk lists could not be parsed or processed (RFC 8166 section 4.5.2).
     *
     * @param xid the XID of the rejected message
     * @param credits the credit value
     */
    record ChunkError(int xid, int credits) implements RdmaError {
        @Override
        public int code() {
            return ERR_CHUNK;
        }
    }

    /**
     * Any other error code: the draft's {@code default} arm carries {@code uint32 rdma_extra[8]} (draft section
     * 4.3); RFC 8166 defines no such arm. Decoded, for peers of either kind, with as many of those words as the
     * message holds (at most eight); never built by this library.
     *
     * @param xid the XID of the rejected message
     * @param credits the credit value
     * @param code the unrecognized error code
     * @param extra up to eight words that followed it
     */
    record Unrecognized(int xid, int credits, int code, List<Integer> extra) implements RdmaError {
        /** The size of the draft's {@code rdma_extra} array. */
        public static final int MAX_EXTRA = 8;

        /**
         * Copies the extra words.
         *
         * @throws IllegalArgumentException if {@code code} is ERR_VERS or ERR_CHUNK, which have records of their own
         */
        public Unrecognized {
            extra = List.copyOf(extra);
            if (code == ERR_VERS || code == ERR_CHUNK) {
                throw new IllegalArgumentException("error code " + code + " is recognized");
            }
            if (extra.size() > MAX_EXTRA) {
                throw new IllegalArgumentException(extra.size() + " extra words, at most " + MAX_EXTRA);
            }
        }
    }
}
