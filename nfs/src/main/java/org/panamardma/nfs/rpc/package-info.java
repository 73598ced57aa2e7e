/**
 * The transport-neutral RPC client interface the NFS client is written against
 * ({@link org.panamardma.nfs.rpc.RpcTransport}), its direct-data-placement hooks for replies
 * ({@link org.panamardma.nfs.rpc.ReplyReader}, {@link org.panamardma.nfs.rpc.ReplyPlacement}), and its TCP
 * implementation ({@link org.panamardma.nfs.rpc.TcpRpcTransport}).
 */
package org.panamardma.nfs.rpc;
