/**
 * The responder (server) side of RPC-over-RDMA version 1 (RFC 8166; draft-ietf-nfsv4-rpcrdma-08).
 *
 * <p>{@link org.panamardma.rpcrdma.server.RpcRdmaServer} listens with rdma_cm and serves any
 * {@link org.panamardma.oncrpc.RpcDispatcher}. The protocol logic is device-free and host-tested:
 * {@link org.panamardma.rpcrdma.server.RpcRdmaCallHandler} takes one received message and answers it (header checks
 * with ERR_VERS / ERR_CHUNK, call assembly from Read chunks, replies inline, through the Write list or in the Reply
 * chunk, credits), moving chunk data through {@link org.panamardma.rpcrdma.server.ChunkTransfers}, which the server
 * implements with RDMA Read and Write. {@link org.panamardma.rpcrdma.server.ConfigRdmaProgram} answers the
 * Connection Configuration Protocol (draft section 6) with each connection's own values.
 */
package org.panamardma.rpcrdma.server;
