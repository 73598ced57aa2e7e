/**
 * ONC RPC version 2 (RFC 5531), transport-agnostic: message headers as immutable records
 * ({@link org.panamardma.oncrpc.RpcCall}, {@link org.panamardma.oncrpc.AcceptedReply},
 * {@link org.panamardma.oncrpc.RejectedReply}) with their codec {@link org.panamardma.oncrpc.RpcMessageCodec};
 * the AUTH_NONE and AUTH_SYS flavors; a server-side {@link org.panamardma.oncrpc.RpcDispatcher}; and record marking
 * for byte streams, which {@link org.panamardma.oncrpc.tcp} runs over TCP. Knows nothing of RDMA; transports reach
 * it through XDR encoders and decoders.
 */
package org.panamardma.oncrpc;
