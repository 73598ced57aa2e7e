/**
 * ONC RPC over RDMA, version 1 (RFC 8166): the header codec ({@code org.panamardma.rpcrdma}), the client
 * ({@code .rpcrdma.client}) and the server ({@code .rpcrdma.server}) transports over verbs-ffm. Every package is API.
 * The module reads {@code org.panamardma.oncrpc} (XDR, ONC RPC v2, TCP) transitively, so that its users see the
 * RPC types its transports carry, and {@code org.panamardma.verbs} transitively because the transports take and
 * hand out its types.
 *
 * <p>This module makes no restricted call itself: native access is needed by {@code org.panamardma.verbs} only.
 */
module org.panamardma.rpcrdma {
    requires transitive org.panamardma.oncrpc;
    requires transitive org.panamardma.verbs;
    // logging API only: the application binds it
    requires org.slf4j;

    exports org.panamardma.rpcrdma;
    exports org.panamardma.rpcrdma.client;
    exports org.panamardma.rpcrdma.server;
// not exported: the registered memory (pools, cache, windows, registrars) both transports are built on
// (org.panamardma.rpcrdma.memory); users lease buffers through the client's RegisteredBufferPool
}
