package org.panamardma.examples;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.panamardma.netty.RdmaIoHandler;
import org.panamardma.netty.grpc.RawBytes;
import org.panamardma.netty.grpc.RdmaGrpc;

/**
 * The README's "Netty and gRPC over RDMA": a gRPC server and channel of grpc-netty, unchanged but for the channel
 * types and the event loops ({@link RdmaGrpc} sets them), calling a unary method over RDMA.
 */
public final class GrpcOverRdma {
    private GrpcOverRdma() {}

    /** A unary method whose messages are bytes (a generated protobuf stub works the same way). */
    static final MethodDescriptor<byte[], byte[]> SHOUT =
            RawBytes.method("example.Shout", "Shout", MethodDescriptor.MethodType.UNARY);

    static ServerServiceDefinition shoutService() {
        return ServerServiceDefinition.builder("example.Shout")
                .addMethod(SHOUT, ServerCalls.asyncUnaryCall((request, reply) -> {
                    reply.onNext(new String(request, StandardCharsets.UTF_8)
                            .toUpperCase()
                            .getBytes(StandardCharsets.UTF_8));
                    reply.onCompleted();
                }))
                .build();
    }

    /** Serves the method on {@code host}:50051 over RDMA, calls it once and prints the answer. */
    public static void main(String[] args) throws Exception {
        String host = args.length > 0 ? args[0] : "10.77.0.2"; // an RDMA device's address
        // spotless:off (the README shows this region as written here: ReadmeExamplesTest)
        // README begin: grpc
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());   // RDMA event loops
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        InetSocketAddress address = new InetSocketAddress(host, 50051);
        Server server = RdmaGrpc.serverBuilder(address, boss, workers)     // grpc-netty's builders, set for RDMA
                .addService(shoutService()).build().start();
        ManagedChannel channel = RdmaGrpc.channelBuilder(address, workers).usePlaintext().build();
        byte[] answer = ClientCalls.blockingUnaryCall(channel, SHOUT, CallOptions.DEFAULT
                .withDeadlineAfter(60, TimeUnit.SECONDS), "hello over rdma".getBytes(StandardCharsets.UTF_8));
        System.out.println(new String(answer, StandardCharsets.UTF_8));
        channel.shutdown().awaitTermination(30, TimeUnit.SECONDS);
        server.shutdown().awaitTermination(30, TimeUnit.SECONDS);
        workers.shutdownGracefully().sync();
        boss.shutdownGracefully().sync();
        // README end
        // spotless:on
    }
}
