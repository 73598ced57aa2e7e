package org.panamardma.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * What the transport's device tests share: addresses on the testbed's wire, event loop groups, bootstraps on the RDMA
 * channels, the checkable byte stream.
 */
final class DeviceTestSupport {
    private static final AtomicInteger PORTS = new AtomicInteger(40_000 + new Random().nextInt(10_000));

    private DeviceTestSupport() {}

    /** A fresh port on the peer device's address (siw reuses a closed port badly: a new one per test). */
    static InetSocketAddress serverAddress(RdmaTestDevice device) {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer device"));
        InetAddress ip = peer.ipv4().orElseThrow(() -> new AssertionError(peer + " has no IPv4 address"));
        return new InetSocketAddress(ip, PORTS.getAndIncrement());
    }

    /**
     * The connect timeout of the tests' clients: the whole rdma_cm connect (address, route, connection) of a
     * testbed VM under emulation on a loaded machine has taken over 30 s (Netty's default), seen on rxe in the
     * Debian 12 image with two VMs running.
     */
    static final int CONNECT_TIMEOUT_MILLIS = 120_000;

    static EventLoopGroup group(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, RdmaIoHandler.newFactory());
    }

    /** A client bootstrap on {@link RdmaChannel} with the tests' {@link #CONNECT_TIMEOUT_MILLIS}. */
    static Bootstrap client(EventLoopGroup group) {
        return new Bootstrap()
                .group(group)
                .channel(RdmaChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS);
    }

    /** A server bootstrap on {@link RdmaServerChannel} whose one group accepts and serves. */
    static ServerBootstrap server(EventLoopGroup group) {
        return new ServerBootstrap().group(group).channel(RdmaServerChannel.class);
    }

    /** A server bootstrap on {@link RdmaServerChannel}: {@code boss} accepts, {@code workers} serve. */
    static ServerBootstrap server(EventLoopGroup boss, EventLoopGroup workers) {
        return new ServerBootstrap().group(boss, workers).channel(RdmaServerChannel.class);
    }

    static void shutdown(EventLoopGroup... groups) throws InterruptedException {
        for (EventLoopGroup g : groups) {
            if (g != null) {
                var _ = g.shutdownGracefully(0, 5, TimeUnit.SECONDS); // waited for below (terminationFuture)
            }
        }
        for (EventLoopGroup g : groups) {
            if (g != null && !g.terminationFuture().await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("event loop group did not terminate within 30 s");
            }
        }
    }

    /**
     * The byte at stream position {@code p} of connection {@code c}: every byte checkable, no two streams alike. Byte
     * {@code p & 7} (little-endian) of the stream's word {@code p >>> 3}, so that {@link #fill} and {@link #mismatch}
     * work a word at a time: under emulation a check byte by byte through {@code ByteBuf} costs more than the
     * transfer it checks.
     */
    static byte pattern(int c, long p) {
        return (byte) (word(c, p >>> 3) >>> ((p & 7) << 3));
    }

    /** Word {@code w} (stream bytes {@code 8w .. 8w+7}) of connection {@code c}'s stream. */
    static long word(int c, long w) {
        long x = w * 0x9E3779B97F4A7C15L + (c + 1) * 0xC2B2AE3D27D4EB4FL;
        return x ^ x >>> 29 ^ x >>> 41;
    }

    /** Writes stream bytes {@code p .. p+n-1} of connection {@code c} to {@code b}. */
    static void fill(ByteBuf b, int c, long p, int n) {
        int i = 0;
        for (; i < n && (p + i & 7) != 0; i++) {
            b.writeByte(pattern(c, p + i));
        }
        for (; i + 8 <= n; i += 8) {
            b.writeLongLE(word(c, p + i >>> 3));
        }
        for (; i < n; i++) {
            b.writeByte(pattern(c, p + i));
        }
    }

    /**
     * Compares the {@code n} bytes of {@code b} at {@code at} with stream bytes {@code p ..} of connection {@code c},
     * every byte (eight at a time where aligned): the offset of the first that differs, or -1.
     */
    static int mismatch(ByteBuf b, int at, int c, long p, int n) {
        int i = 0;
        for (; i < n && (p + i & 7) != 0; i++) {
            if (b.getByte(at + i) != pattern(c, p + i)) {
                return i;
            }
        }
        for (; i + 8 <= n; i += 8) {
            if (b.getLongLE(at + i) != word(c, p + i >>> 3)) {
                break; // the byte loop below finds which
            }
        }
        for (; i < n; i++) {
            if (b.getByte(at + i) != pattern(c, p + i)) {
                return i;
            }
        }
        return -1;
    }
}
