/**
 * gRPC-java over RDMA: {@link org.panamardma.netty.grpc.RdmaGrpc} builds grpc-netty's server and channel on
 * netty-rdma's channels and event loops; {@link org.panamardma.netty.grpc.RawBytes} describes methods whose messages
 * are byte arrays. Needs grpc-netty, an optional dependency of this module, on the class or module path.
 */
package org.panamardma.netty.grpc;
