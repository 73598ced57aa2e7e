/**
 * Serves dCache oncrpc4j programs ({@code org.dcache.oncrpc4j.rpc.RpcDispatchable}) over RPC-over-RDMA version 1
 * (RFC 8166) with {@code org.panamardma.rpcrdma}'s server: {@link org.panamardma.oncrpc4j.OncRpcRdmaSvc}.
 *
 * <p>oncrpc4j 3.4.2 is an automatic module ({@code Automatic-Module-Name: org.dcache.oncrpc4j}); so are its
 * dependencies Grizzly 4.0.0, whose name {@code grizzly.framework} is derived from its jar's file name (keep the jar
 * named as Maven names it), and Guava. Automatic modules read every module in the graph but require none by name, so
 * this module names the JDK module oncrpc4j's RPCSEC_GSS classes use, which would otherwise not be resolved when the
 * application itself is a named module.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module org.panamardma.oncrpc4j {
    requires transitive org.panamardma.rpcrdma;
    requires org.slf4j;
    requires transitive org.dcache.oncrpc4j;
    // the bridge reads oncrpc4j's replies (Grizzly Buffers, FileChunks) and wraps calls in Grizzly Buffers
    requires grizzly.framework;
    // for oncrpc4j (org.ietf.jgss in RpcCredential's RPCSEC_GSS case and OncRpcSvc's GSS filter)
    requires java.security.jgss;

    exports org.panamardma.oncrpc4j;
}
