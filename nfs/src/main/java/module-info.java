/**
 * A small NFSv3 client (RFC 1813) with MOUNT v3 and portmapper/rpcbind ({@code org.panamardma.nfs}) over any ONC
 * RPC transport ({@code org.panamardma.nfs.rpc}: TCP or RPC-over-RDMA).
 */
module org.panamardma.nfs {
    requires transitive org.panamardma.rpcrdma;

    exports org.panamardma.nfs;
    exports org.panamardma.nfs.rpc;
}
