package org.panamardma.rpcrdma.server;

/** How the server answered one received message. */
public enum ReplyPath {
    /** RDMA_MSG with the whole reply inline. */
    INLINE,
    /** RDMA_MSG with one or more result items RDMA-written to the client's Write chunks, the rest inline. */
    WRITE_LIST,
    /** RDMA_NOMSG: the (reduced) reply RDMA-written to the client's Reply chunk. */
    REPLY_CHUNK,
    /** RDMA_ERROR / ERR_VERS. */
    ERR_VERS,
    /** RDMA_ERROR / ERR_CHUNK. */
    ERR_CHUNK,
    /** Nothing sent: a message no reply is due for (RDMA_DONE, RDMA_ERROR, an unreadable version). */
    DROPPED
}
