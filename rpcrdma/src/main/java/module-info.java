/**
 * ONC RPC over RDMA: XDR ({@code org.panamardma.xdr}), ONC RPC v2 messages and dispatch
 * ({@code org.panamardma.oncrpc}) with its TCP transport ({@code .oncrpc.tcp}), and RPC-over-RDMA version 1: the
 * header codec ({@code org.panamardma.rpcrdma}), the client ({@code .rpcrdma.client}) and the server
 * ({@code .rpcrdma.server}) transports over verbs-ffm. Every package is API; the module reads
 * {@code org.panamardma.verbs} transitively because the transports take and hand out its types.
 *
 * <p>This module makes no restricted call itself: native access is needed by {@code org.panamardma.verbs} only.
 */
module org.panamardma.rpcrdma {
    requires transitive org.panamardma.verbs;
    // logging API only: the application binds it
    requires org.slf4j;

    exports org.panamardma.xdr;
    exports org.panamardma.oncrpc;
    exports org.panamardma.oncrpc.limits;
    exports org.panamardma.oncrpc.tcp;
    exports org.panamardma.rpcrdma;
    exports org.panamardma.rpcrdma.client;
    exports org.panamardma.rpcrdma.server;
}
