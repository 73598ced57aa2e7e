package org.panamardma.rpcrdma;

import java.lang.foreign.MemorySegment;

/**
 * A decoded transport header and where it ends in the received message.
 *
 * @param header the header
 * @param length the header's encoded length: for RDMA_MSG and RDMA_MSGP, the RPC message starts here
 */
public record DecodedHeader(RpcRdmaHeader header, int length) {
    /**
     * {@return the part of {@code message} after the header: the inline RPC message, if the header type has one}
     *
     * @param message the whole received message
     */
    public MemorySegment rpcMessage(MemorySegment message) {
        return message.asSlice(length);
    }
}
