/**
 * The requester (client) side of RPC-over-RDMA version 1 (RFC 8166) over verbs-ffm's rdma_cm connections:
 * {@link org.panamardma.rpcrdma.client.RpcRdmaClient} (connection, RFC 8797 private data, credits, calls and
 * replies), {@link org.panamardma.rpcrdma.client.ChunkPlanner} (how each call and its reply travel: inline, Read
 * chunks, a position-zero Long Call, a Write list or a Reply chunk; pure and host-tested, like
 * {@link org.panamardma.rpcrdma.client.ReplyExpectation} and {@link org.panamardma.rpcrdma.client.CallPlan}) and
 * the reply and errors it hands back ({@link org.panamardma.rpcrdma.client.RpcRdmaReply},
 * {@link org.panamardma.rpcrdma.client.RpcRdmaException}). Interoperability with Linux knfsd is tested in the nfs
 * module ({@code KnfsdRdmaDeviceTests}).
 */
package org.panamardma.rpcrdma.client;
