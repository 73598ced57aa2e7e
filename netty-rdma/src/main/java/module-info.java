/**
 * A Netty 4.2 transport over RDMA: {@link org.panamardma.netty.RdmaIoHandler} (the event loop's I/O: completion
 * queues and rdma_cm events), {@link org.panamardma.netty.RdmaChannel} and
 * {@link org.panamardma.netty.RdmaServerChannel} (reliable-connected queue pairs made with rdma_cm, a byte stream
 * over SENDs with credits and RDMA WRITE for bulk data), and a {@code ByteBufAllocator} over registered memory;
 * {@link org.panamardma.netty.grpc} builds gRPC-java's Netty server and channel over them.
 *
 * <p>Native access is needed by {@code org.panamardma.verbs} only (this module makes no restricted call).
 */
module org.panamardma.netty {
    requires transitive org.panamardma.verbs;
    requires transitive io.netty.transport;
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    requires org.slf4j;
    // org.panamardma.netty.grpc only, for users of gRPC-java (grpc-netty is an optional dependency)
    requires static io.grpc;
    requires static io.grpc.netty;

    exports org.panamardma.netty;
    exports org.panamardma.netty.grpc;
}
