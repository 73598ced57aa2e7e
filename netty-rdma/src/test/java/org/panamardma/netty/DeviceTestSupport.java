package org.panamardma.netty;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamardma.testbed.RdmaTestDevice;

/** What the transport's device tests share: addresses on the testbed's wire, event loop groups. */
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

    static void shutdown(EventLoopGroup... groups) throws InterruptedException {
        for (EventLoopGroup g : groups) {
            if (g != null) {
                g.shutdownGracefully(0, 5, TimeUnit.SECONDS);
            }
        }
        for (EventLoopGroup g : groups) {
            if (g != null && !g.terminationFuture().await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("event loop group did not terminate within 30 s");
            }
        }
    }

    /** The byte at stream position {@code p} of connection {@code c}: every byte checkable, no two streams alike. */
    static byte pattern(int c, long p) {
        long x = p * 0x9E3779B97F4A7C15L + (c + 1) * 0xC2B2AE3D27D4EB4FL;
        return (byte) (x >>> 56 ^ x >>> 29);
    }
}
