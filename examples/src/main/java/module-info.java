/**
 * The README's Java code, kept compiling: each README block is a region of these sources (between
 * {@code // README begin: NAME} and {@code // README end}), checked line by line against README.md by the host test
 * {@code ReadmeExamplesTest}, and run on rxe and siw by the device tests. Not an API: nothing is exported.
 */
module org.panamardma.examples {
    requires org.panamardma.nfs;
    requires org.panamardma.oncrpc4j;
    requires org.panamardma.netty;
    // gRPC-java's jars are automatic modules
    requires io.grpc;
    requires io.grpc.netty;
    requires io.grpc.stub;
}
