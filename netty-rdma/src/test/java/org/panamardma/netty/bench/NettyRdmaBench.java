package org.panamardma.netty.bench;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.panamardma.netty.RdmaChannel;
import org.panamardma.netty.RdmaIoHandler;
import org.panamardma.netty.RdmaServerChannel;

/**
 * One program, three transports, the same code: Netty echo round trips (64 B, 4 KiB, 64 KiB), one-way throughput
 * of 1 MiB writes, and a gRPC unary call, over netty-rdma (rxe and siw) and over Netty's NIO and epoll transports on
 * TCP across the same veth pair. Prints a table with medians and the ratios to TCP. Run it in the testbed VM:
 * {@code netty-rdma/bench.sh}. Arguments: {@code [rounds] [MiB]} (default 2000 round trips per size and gRPC calls,
 * 64 MiB per throughput run). Each figure is printed as it is taken, the table at the end.
 */
public final class NettyRdmaBench {
    private NettyRdmaBench() {}

    record Transport(
            String name,
            IoHandlerFactory io,
            Class<? extends Channel> client,
            Class<? extends ServerChannel> server,
            String serverHost,
            String clientHost) {}

    @ChannelHandler.Sharable
    static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            var _ = ctx.write(msg, ctx.voidPromise()); // a void promise: a failure fires exceptionCaught
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Counts the bytes of a one-way stream and completes when {@code expect} arrived. */
    static final class Sink extends ChannelInboundHandlerAdapter {
        volatile CompletableFuture<Void> done = new CompletableFuture<>();
        volatile long expect;
        long got;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            got += ((ByteBuf) msg).readableBytes();
            ((ByteBuf) msg).release();
            if (got >= expect) {
                got = 0;
                done.complete(null);
            }
        }
    }

    /** Round trips of {@code size} bytes: waits for the whole echo before the next. */
    static final class PingPong extends ChannelInboundHandlerAdapter {
        final int size;
        final long[] samples;
        int index = -1;
        long received;
        long start;
        final CompletableFuture<long[]> done = new CompletableFuture<>();

        PingPong(int size, int rounds) {
            this.size = size;
            this.samples = new long[rounds];
        }

        void next(ChannelHandlerContext ctx) {
            index++;
            if (index == samples.length) {
                done.complete(samples);
                return;
            }
            received = 0;
            start = System.nanoTime();
            var _ = ctx.writeAndFlush(
                    ctx.alloc().directBuffer(size).writeZero(size),
                    ctx.voidPromise()); // a void promise: a failure fires exceptionCaught
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.executor().execute(() -> next(ctx));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            received += ((ByteBuf) msg).readableBytes();
            ((ByteBuf) msg).release();
            if (received == size) {
                samples[index] = System.nanoTime() - start;
                next(ctx);
            }
        }
    }

    static final MethodDescriptor<byte[], byte[]> UNARY = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("bench.Echo/Unary")
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
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        long throughputMiB = args.length > 1 ? Long.parseLong(args[1]) : 64;
        List<Transport> transports = new ArrayList<>();
        transports.add(new Transport(
                "rdma-rxe",
                RdmaIoHandler.newFactory(),
                RdmaChannel.class,
                RdmaServerChannel.class,
                "10.77.0.2",
                "10.77.0.1"));
        transports.add(new Transport(
                "rdma-siw",
                RdmaIoHandler.newFactory(),
                RdmaChannel.class,
                RdmaServerChannel.class,
                "10.77.1.2",
                "10.77.1.1"));
        transports.add(new Transport(
                "tcp-nio",
                NioIoHandler.newFactory(),
                NioSocketChannel.class,
                NioServerSocketChannel.class,
                "10.77.0.2",
                "10.77.0.1"));
        if (Epoll.isAvailable()) {
            transports.add(new Transport(
                    "tcp-epoll",
                    EpollIoHandler.newFactory(),
                    EpollSocketChannel.class,
                    EpollServerSocketChannel.class,
                    "10.77.0.2",
                    "10.77.0.1"));
        } else {
            System.out.println("epoll unavailable: " + Epoll.unavailabilityCause());
        }
        int port = 47_000;
        Map<String, Map<String, Double>> results = new LinkedHashMap<>();
        for (Transport t : transports) {
            Map<String, Double> r = new LinkedHashMap<>();
            results.put(t.name, r);
            EventLoopGroup server = new MultiThreadIoEventLoopGroup(1, t.io);
            EventLoopGroup client = new MultiThreadIoEventLoopGroup(1, t.io);
            try {
                InetSocketAddress addr = new InetSocketAddress(t.serverHost, port++);
                Channel s = new ServerBootstrap()
                        .group(server)
                        .channel(t.server)
                        .childHandler(new Echo())
                        .bind(addr)
                        .sync()
                        .channel();
                for (int size : new int[] {64, 4096, 65536}) {
                    PingPong p = new PingPong(size, rounds);
                    Channel c = new Bootstrap()
                            .group(client)
                            .channel(t.client)
                            .handler(p)
                            .localAddress(new InetSocketAddress(t.clientHost, 0))
                            .connect(addr)
                            .sync()
                            .channel();
                    long[] samples = p.done.get(600, TimeUnit.SECONDS);
                    long[] measured = Arrays.copyOfRange(samples, samples.length / 2, samples.length); // 2nd half
                    Arrays.sort(measured);
                    r.put("rtt " + size + " B median us", measured[measured.length / 2] / 1000.0);
                    r.put("rtt " + size + " B p99 us", measured[(int) (measured.length * 0.99)] / 1000.0);
                    System.out.printf(
                            "%s: rtt %d B median %.1f us%n", t.name, size, measured[measured.length / 2] / 1e3);
                    c.close().sync();
                }
                s.close().sync();
                // throughput: 1 MiB writes one way, the sink counts
                Sink sink = new Sink();
                InetSocketAddress tAddr = new InetSocketAddress(t.serverHost, port++);
                Channel ts = new ServerBootstrap()
                        .group(server)
                        .channel(t.server)
                        .childHandler(sink)
                        .bind(tAddr)
                        .sync()
                        .channel();
                Channel tc = new Bootstrap()
                        .group(client)
                        .channel(t.client)
                        .handler(new ChannelInboundHandlerAdapter())
                        .localAddress(new InetSocketAddress(t.clientHost, 0))
                        .connect(tAddr)
                        .sync()
                        .channel();
                double best = 0;
                for (int run = 0; run < 3; run++) {
                    long total = throughputMiB << 20;
                    sink.expect = total;
                    sink.done = new CompletableFuture<>();
                    long start = System.nanoTime();
                    tc.eventLoop().execute(() -> writeStream(tc, total));
                    sink.done.get(600, TimeUnit.SECONDS);
                    double mibs = (total >> 20) / ((System.nanoTime() - start) / 1e9);
                    best = Math.max(best, mibs);
                    System.out.printf("%s: %d MiB in 1 MiB writes at %.1f MiB/s%n", t.name, throughputMiB, mibs);
                }
                r.put("throughput 1 MiB writes MiB/s", best);
                tc.close().sync();
                ts.close().sync();
                // gRPC unary, 64 B
                InetSocketAddress gAddr = new InetSocketAddress(t.serverHost, port++);
                Server g = NettyServerBuilder.forAddress(gAddr)
                        .channelType(t.server)
                        .bossEventLoopGroup(server)
                        .workerEventLoopGroup(server)
                        .addService(ServerServiceDefinition.builder("bench.Echo")
                                .addMethod(UNARY, ServerCalls.asyncUnaryCall((req, out) -> {
                                    out.onNext(req);
                                    out.onCompleted();
                                }))
                                .build())
                        .build()
                        .start();
                ManagedChannel ch = NettyChannelBuilder.forAddress(gAddr)
                        .channelType(t.client)
                        .eventLoopGroup(client)
                        .usePlaintext()
                        .build();
                long[] calls = new long[rounds];
                for (int i = 0; i < rounds; i++) {
                    long t0 = System.nanoTime();
                    ClientCalls.blockingUnaryCall(
                            ch, UNARY, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), new byte[64]);
                    calls[i] = System.nanoTime() - t0;
                }
                long[] measured = Arrays.copyOfRange(calls, rounds / 2, rounds);
                Arrays.sort(measured);
                r.put("grpc unary 64 B median us", measured[measured.length / 2] / 1000.0);
                ch.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
                g.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
            } finally {
                client.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
                server.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
            }
            System.out.println(t.name + ": " + r);
        }
        print(results);
    }

    static void writeStream(Channel c, long total) {
        long[] left = {total};
        Runnable[] more = new Runnable[1];
        more[0] = () -> {
            while (left[0] > 0 && c.isWritable()) {
                int n = (int) Math.min(1 << 20, left[0]);
                left[0] -= n;
                var _ = c.write(
                        c.alloc().directBuffer(n).writerIndex(n),
                        c.voidPromise()); // a void promise: a failure fires exceptionCaught
            }
            c.flush();
            if (left[0] > 0) {
                var _ = c.eventLoop().schedule(more[0], 50, TimeUnit.MICROSECONDS);
            }
        };
        more[0].run();
    }

    static void print(Map<String, Map<String, Double>> results) {
        List<String> names = new ArrayList<>(results.keySet());
        List<String> rows = new ArrayList<>(results.values().iterator().next().keySet());
        StringBuilder b = new StringBuilder("\n| measure |");
        names.forEach(n -> b.append(' ').append(n).append(" |"));
        for (String n : names) {
            if (n.startsWith("rdma")) {
                for (String tcp : names) {
                    if (tcp.startsWith("tcp")) {
                        b.append(' ').append(n).append(" / ").append(tcp).append(" |");
                    }
                }
            }
        }
        b.append('\n').append("|---|");
        b.append("---|"
                .repeat(names.size()
                        + (int) (names.stream()
                                        .filter(n -> n.startsWith("rdma"))
                                        .count()
                                * names.stream()
                                        .filter(n -> n.startsWith("tcp"))
                                        .count())));
        for (String row : rows) {
            b.append("\n| ").append(row).append(" |");
            for (String n : names) {
                b.append(String.format(" %.1f |", results.get(n).get(row)));
            }
            for (String n : names) {
                if (n.startsWith("rdma")) {
                    for (String tcp : names) {
                        if (tcp.startsWith("tcp")) {
                            b.append(String.format(
                                    " %.2f |",
                                    results.get(n).get(row) / results.get(tcp).get(row)));
                        }
                    }
                }
            }
        }
        System.out.println(b);
    }
}
