/**
 * RPC-over-RDMA version 1 (RFC 8166; draft-ietf-nfsv4-rpcrdma-08 forms accepted when decoding): the transport
 * header codec, pure and device-free.
 *
 * <p>{@link org.panamardma.rpcrdma.RpcRdmaHeader} and its records model the header and its chunk lists;
 * {@link org.panamardma.rpcrdma.RpcRdmaHeaderEncoder} writes them, {@link org.panamardma.rpcrdma.RpcRdmaHeaderDecoder}
 * reads and checks untrusted ones under {@link org.panamardma.rpcrdma.HeaderLimits}, refusing with a
 * {@link org.panamardma.rpcrdma.HeaderFault} that maps to ERR_VERS, ERR_CHUNK or a drop;
 * {@link org.panamardma.rpcrdma.ReadListPositions} checks Read chunk positions against the message and
 * {@link org.panamardma.rpcrdma.ChunkRoundup} holds the XDR roundup rules for chunks.
 */
package org.panamardma.rpcrdma;
