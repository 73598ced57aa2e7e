package org.panamardma.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ResourceLeakDetector;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Measures what the event loops allocate per message, in a JVM of its own with the JIT's full optimisation (the
 * device suite's JVM runs C1 only, without the escape analysis production code gets): a 64-byte ping-pong between a
 * client and an echo server in this process, warmed up, then {@code rounds} round trips measured with
 * {@code ThreadMXBean.getThreadAllocatedBytes} on both loop threads. Prints {@code allocated-per-round-trip server=S
 * client=C} (the lowest of three measured runs). Arguments: server address, client address, port, rounds.
 */
public final class AllocationProbe {
    private AllocationProbe() {}

    @ChannelHandler.Sharable
    static final class Echo extends ChannelInboundHandlerAdapter {
        volatile long thread;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            thread = Thread.currentThread().threadId();
            ctx.writeAndFlush(msg, ctx.voidPromise());
        }
    }

    static final class Pinger extends ChannelInboundHandlerAdapter {
        volatile long thread;
        int left;
        CompletableFuture<Void> done;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            thread = Thread.currentThread().threadId();
            if (--left > 0) {
                ctx.writeAndFlush(msg, ctx.voidPromise()); // the same 64 bytes again
            } else {
                ((ByteBuf) msg).release();
                done.complete(null);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED); // its sampling allocates by design
        InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[2]));
        InetSocketAddress client = new InetSocketAddress(InetAddress.getByName(args[1]), 0);
        int rounds = Integer.parseInt(args[3]);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        EventLoopGroup boss = DeviceTestSupport.group(1);
        EventLoopGroup workers = DeviceTestSupport.group(1);
        EventLoopGroup clients = DeviceTestSupport.group(1);
        try {
            Echo echo = new Echo();
            new ServerBootstrap().group(boss, workers).channel(RdmaServerChannel.class).childHandler(echo)
                    .bind(server).sync();
            Pinger pinger = new Pinger();
            Channel ch = new Bootstrap().group(clients).channel(RdmaChannel.class)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, DeviceTestSupport.CONNECT_TIMEOUT_MILLIS)
                    .handler(pinger)
                    .localAddress(client).connect(server).sync().channel();
            long bestServer = Long.MAX_VALUE;
            long bestClient = Long.MAX_VALUE;
            for (int run = 0; run < 5; run++) { // two warm-ups (the JIT compiles the path), three measured
                pinger.left = rounds;
                pinger.done = new CompletableFuture<>();
                long s0 = echo.thread == 0 ? 0 : threads.getThreadAllocatedBytes(echo.thread);
                long c0 = pinger.thread == 0 ? 0 : threads.getThreadAllocatedBytes(pinger.thread);
                ch.writeAndFlush(ch.alloc().directBuffer(64).writeZero(64), ch.voidPromise());
                pinger.done.get(600, TimeUnit.SECONDS);
                if (run >= 2) {
                    bestServer = Math.min(bestServer, (threads.getThreadAllocatedBytes(echo.thread) - s0) / rounds);
                    bestClient = Math.min(bestClient, (threads.getThreadAllocatedBytes(pinger.thread) - c0) / rounds);
                }
            }
            System.out.println("allocated-per-round-trip server=" + bestServer + " client=" + bestClient + " device="
                    + ((RdmaChannel) ch).deviceName());
            ch.close().sync();
        } finally {
            DeviceTestSupport.shutdown(clients, workers, boss);
        }
    }
}
