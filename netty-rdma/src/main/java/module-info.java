/**
 * A Netty 4.2 transport over RDMA: {@link org.panamardma.netty.RdmaIoHandler} (the event loop's I/O: completion
 * queues and rdma_cm events), {@link org.panamardma.netty.RdmaChannel} and
 * {@link org.panamardma.netty.RdmaServerChannel} (reliable-connected queue pairs made with rdma_cm, a byte stream
 * over SENDs with credits and RDMA WRITE for bulk data), and a {@code ByteBufAllocator} over registered memory.
 *
 * <p>Native access is needed by {@code org.panamardma.verbs} only (this module makes no restricted call).
 */
module org.panamardma.netty {
    requires transitive org.panamardma.verbs;
    requires transitive io.netty.transport;
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    requires org.slf4j;

    exports org.panamardma.netty;
}
