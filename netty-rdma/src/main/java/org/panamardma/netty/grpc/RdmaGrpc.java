package org.panamardma.netty.grpc;

import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.Objects;
import org.panamardma.netty.RdmaChannel;
import org.panamardma.netty.RdmaIoHandler;
import org.panamardma.netty.RdmaServerChannel;

/**
 * gRPC-java's Netty server and channel over RDMA: grpc-netty's own builders, unchanged but for the channel types
 * ({@link RdmaServerChannel}, {@link RdmaChannel}) and the event loop groups, which must be groups of
 * {@link RdmaIoHandler}s ({@code new MultiThreadIoEventLoopGroup(n, RdmaIoHandler.newFactory())}). Everything else
 * (services, interceptors, TLS or plaintext, flow control, deadlines) is set on the returned builder as for TCP.
 *
 * <p>The groups stay the caller's: gRPC does not shut down groups it was given, so shut them down after the server
 * and channel have terminated.
 */
public final class RdmaGrpc {
    private RdmaGrpc() {}

    /**
     * A gRPC server builder that listens on {@code address} with rdma_cm.
     *
     * @param address an RDMA device's address (or the wildcard) and the port to listen on
     * @param boss the group whose loop accepts connection requests: a group of {@link RdmaIoHandler}s
     * @param workers the group whose loops serve the connections: a group of {@link RdmaIoHandler}s
     * @return grpc-netty's builder, set for RDMA
     * @throws IllegalArgumentException if a group is not one of {@link RdmaIoHandler}s, or the address is unresolved
     */
    public static NettyServerBuilder serverBuilder(
            InetSocketAddress address, EventLoopGroup boss, EventLoopGroup workers) {
        return NettyServerBuilder.forAddress(resolved(address))
                .channelType(RdmaServerChannel.class)
                .bossEventLoopGroup(rdmaGroup("boss", boss))
                .workerEventLoopGroup(rdmaGroup("workers", workers));
    }

    /**
     * A gRPC channel builder whose connections to {@code address} are RDMA ones.
     *
     * @param address the server's address on an RDMA device
     * @param group the group whose loops run the connections: a group of {@link RdmaIoHandler}s
     * @return grpc-netty's builder, set for RDMA (choose {@code usePlaintext()} or TLS on it as for TCP)
     * @throws IllegalArgumentException if the group is not one of {@link RdmaIoHandler}s, or the address is unresolved
     */
    public static NettyChannelBuilder channelBuilder(InetSocketAddress address, EventLoopGroup group) {
        return NettyChannelBuilder.forAddress(resolved(address))
                .channelType(RdmaChannel.class)
                .eventLoopGroup(rdmaGroup("group", group));
    }

    private static InetSocketAddress resolved(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        if (address.isUnresolved()) {
            // the channel would refuse it at connect or bind time, after gRPC has started: say so now
            throw new IllegalArgumentException("an RDMA connection needs a resolved address, not " + address);
        }
        return address;
    }

    /**
     * A group of another transport is refused here: otherwise the server's start or the channel's first call fails
     * later with Netty's "incompatible event loop type".
     */
    private static EventLoopGroup rdmaGroup(String name, EventLoopGroup group) {
        Objects.requireNonNull(group, name);
        if (!(group instanceof IoEventLoopGroup io && io.isIoType(RdmaIoHandler.class))) {
            throw new IllegalArgumentException(name + ": " + group.getClass().getName()
                    + " is not a group of RdmaIoHandlers (new MultiThreadIoEventLoopGroup(n, "
                    + "RdmaIoHandler.newFactory()))");
        }
        return group;
    }
}
