package org.panamardma.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The peer that {@code RobustnessDeviceTests} SIGKILLs: a process of its own that connects to the given server and
 * writes a stream for ever (while the channel is writable), printing "connected" once it is.
 */
public final class KilledPeer {
    private KilledPeer() {}

    public static void main(String[] args) throws Exception {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        EventLoopGroup group = DeviceTestSupport.group(1);
        // a JVM started under emulation while others run takes long to get going: a generous connect timeout
        Channel ch = new Bootstrap()
                .group(group)
                .channel(RdmaChannel.class)
                .option(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, 300_000)
                .handler(new ChannelInboundHandlerAdapter() {
                    long written;

                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        write(ctx);
                    }

                    @Override
                    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                        write(ctx);
                    }

                    private void write(ChannelHandlerContext ctx) {
                        while (ctx.channel().isWritable()) {
                            ByteBuf b = ctx.alloc().directBuffer(8192);
                            DeviceTestSupport.fill(b, 0, written, 8192);
                            written += 8192;
                            ctx.write(b).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
                        }
                        ctx.flush();
                    }
                })
                .connect(server)
                .sync()
                .channel();
        System.out.println("connected on " + ((RdmaChannel) ch).deviceName());
        System.out.flush();
        ch.closeFuture().sync();
    }
}
