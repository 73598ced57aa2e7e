/**
 * A small NFSv3 client (RFC 1813) with MOUNT v3 and portmapper/rpcbind ({@code org.panamardma.nfs}) over any ONC
 * RPC transport ({@code org.panamardma.nfs.rpc}: TCP or RPC-over-RDMA), and an NFSv3 server exporting a directory
 * over TCP and RPC-over-RDMA ({@code org.panamardma.nfs.server}). The server makes its own restricted FFM calls
 * (openat2 and the other *at system calls that confine every path to the export), so a server application grants
 * native access to this module as well as to {@code org.panamardma.verbs}.
 */
module org.panamardma.nfs {
    requires transitive org.panamardma.rpcrdma;
    // logging API only: the application binds it
    requires org.slf4j;
    // NfsServerMain's one-line-per-event console format, on java.util.logging: the backend nfs-server.jar binds
    // SLF4J to (slf4j-jdk14); the library's own classes log through SLF4J only
    requires java.logging;

    exports org.panamardma.nfs;
    exports org.panamardma.nfs.rpc;
    exports org.panamardma.nfs.server;
}
