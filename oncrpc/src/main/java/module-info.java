/**
 * XDR ({@code org.panamardma.xdr}, RFC 4506) and ONC RPC v2 ({@code org.panamardma.oncrpc}, RFC 5531): messages,
 * auth flavors, program dispatch, per-server limits ({@code .oncrpc.limits}) and the TCP transport with record
 * marking ({@code .oncrpc.tcp}). No FFM and no RDMA: a user of plain ONC RPC over TCP needs this module alone;
 * {@code org.panamardma.rpcrdma} builds RPC-over-RDMA on it. {@code OncRpcIndependenceTest} keeps it so.
 */
module org.panamardma.oncrpc {
    // logging API only: the application binds it
    requires org.slf4j;

    exports org.panamardma.xdr;
    exports org.panamardma.oncrpc;
    exports org.panamardma.oncrpc.limits;
    exports org.panamardma.oncrpc.tcp;
}
