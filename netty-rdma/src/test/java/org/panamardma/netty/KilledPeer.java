package org.panamardma.netty;

import io.netty.channel.Channel;
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
        Channel ch = DeviceTestSupport.client(group)
                .option(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, 300_000)
                .handler(new PatternWriter(0, Long.MAX_VALUE, 8192))
                .connect(server)
                .sync()
                .channel();
        System.out.println("connected on " + ((RdmaChannel) ch).deviceName());
        System.out.flush();
        ch.closeFuture().sync();
    }
}
