package org.panamardma.examples;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.panamardma.netty.RdmaChannel;
import org.panamardma.netty.RdmaIoHandler;
import org.panamardma.netty.RdmaServerChannel;

/**
 * The README's "Netty and gRPC over RDMA": a gRPC server and channel of grpc-netty, unchanged but for the channel
 * types and the event loops, calling a unary method over RDMA.
 */
public final class GrpcOverRdma {
    private GrpcOverRdma() {}

    /** A unary method whose messages are bytes (a generated protobuf stub works the same way). */
    static final MethodDescriptor<byte[], byte[]> SHOUT = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("example.Shout/Shout")
            .setRequestMarshaller(Bytes.INSTANCE)
            .setResponseMarshaller(Bytes.INSTANCE)
            .build();

    enum Bytes implements MethodDescriptor.Marshaller<byte[]> {
        INSTANCE;

        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

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
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(host, 50051))
                .channelType(RdmaServerChannel.class).bossEventLoopGroup(boss).workerEventLoopGroup(workers)
                .addService(shoutService()).build().start();
        ManagedChannel channel = NettyChannelBuilder.forAddress(new InetSocketAddress(host, 50051))
                .channelType(RdmaChannel.class).eventLoopGroup(workers)
                .usePlaintext().build();
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
