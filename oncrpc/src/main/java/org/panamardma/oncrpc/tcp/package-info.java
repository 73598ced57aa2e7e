/**
 * ONC RPC over TCP (RFC 5531 section 11): {@link org.panamardma.oncrpc.tcp.TcpRpcServer} runs an
 * {@link org.panamardma.oncrpc.RpcDispatcher} over record-marked connections, {@link org.panamardma.oncrpc.tcp.TcpRpcClient}
 * makes calls with many outstanding on one connection, matched to their replies by XID. Pure Java, no RDMA: the
 * byte-stream transport that RPC-over-RDMA is measured against and falls back to.
 */
package org.panamardma.oncrpc.tcp;
