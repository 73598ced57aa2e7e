package org.panamardma.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.security.KeyStore;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaTestDevice;

/**
 * Netty's {@link SslHandler} over the RDMA channel, unchanged: a TLS 1.3 handshake (the server's certificate checked
 * against the test's trust store, the peer's IP address against its subject alternative names) and 256 KiB echoed
 * through it, every byte compared. It shows the channel composes with a handler that rewrites the byte stream.
 */
abstract class TlsDeviceTests {
    static final char[] PASSWORD = "netty-rdma".toCharArray();

    /**
     * Each side's handshake deadline. SslHandler's default, 10 s, is shorter than a cold JVM's first TLS 1.3
     * handshake under emulation (C1 only, the key exchange and the certificate's signature in interpreted and
     * C1 code): on rxe in the Debian 12 image the server's SslHandler gave up and closed the connection, either
     * before the client's handshake was done (the client then saw the connection close during its handshake) or
     * just after it (the echo never came back). Not a speed limit: the verdict is the bytes.
     */
    static final long HANDSHAKE_TIMEOUT_MILLIS = Long.getLong("panama.netty.tlsHandshakeMillis", 120_000);

    /** Each side's receive buffers in this test: a window of 128 KiB, which the echo's TLS records outrun. */
    static final int TLS_RECEIVE_DEPTH = 8;

    static KeyStore keyStore() throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = TlsDeviceTests.class.getResourceAsStream("test-tls.p12")) {
            ks.load(in, PASSWORD);
        }
        return ks;
    }

    @Test
    void anSslHandlerRunsOverTheRdmaChannel(RdmaTestDevice device) throws Exception {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keyStore(), PASSWORD);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(keyStore());
        SslContext serverTls = SslContextBuilder.forServer(kmf)
                .sslProvider(SslProvider.JDK)
                .protocols("TLSv1.3")
                .build();
        SslContext clientTls = SslContextBuilder.forClient()
                .trustManager(tmf)
                .sslProvider(SslProvider.JDK)
                .protocols("TLSv1.3")
                .endpointIdentificationAlgorithm("HTTPS")
                .build();
        InetSocketAddress address = DeviceTestSupport.serverAddress(device);
        EventLoopGroup boss = DeviceTestSupport.group(1);
        EventLoopGroup workers = DeviceTestSupport.group(1);
        EventLoopGroup clients = DeviceTestSupport.group(1);
        // 256 KiB by default (-Dpanama.netty.tlsKiB for more: 1 MiB took 117-181 s on rxe in the Debian 12 image)
        // through receive windows of 8 buffers (128 KiB) on each side, so the TLS records still outrun the peer's
        // credits twice over and wait for them to come back
        int kib = Integer.getInteger("panama.netty.tlsKiB", 256);
        byte[] payload = new byte[kib << 10];
        new Random(5).nextBytes(payload);
        CompletableFuture<byte[]> echoed = new CompletableFuture<>();
        java.util.concurrent.atomic.AtomicReference<Channel> serverChild =
                new java.util.concurrent.atomic.AtomicReference<>();
        try {
            DeviceTestSupport.server(boss, workers)
                    .childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, TLS_RECEIVE_DEPTH)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            serverChild.set(ch);
                            SslHandler tls = serverTls.newHandler(ch.alloc());
                            tls.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
                            tls.handshakeFuture().addListener(f -> {
                                if (!f.isSuccess()) {
                                    echoed.completeExceptionally(
                                            new AssertionError("the server's handshake " + "failed", f.cause()));
                                }
                            });
                            ch.pipeline().addLast(tls, new EchoBack());
                        }
                    })
                    .bind(address)
                    .sync();
            Channel client = DeviceTestSupport.client(clients)
                    .option(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, TLS_RECEIVE_DEPTH)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            SslHandler tls = clientTls.newHandler(
                                    ch.alloc(), address.getAddress().getHostAddress(), address.getPort());
                            tls.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
                            ch.pipeline().addLast(tls, new ChannelInboundHandlerAdapter() {
                                final ByteArrayOutputStream got = new ByteArrayOutputStream();

                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ByteBuf b = (ByteBuf) msg;
                                    got.writeBytes(ByteBufUtil.getBytes(b));
                                    b.release();
                                    if (got.size() >= payload.length) {
                                        echoed.complete(got.toByteArray());
                                    }
                                }

                                @Override
                                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                    echoed.completeExceptionally(cause);
                                }

                                @Override
                                public void channelInactive(ChannelHandlerContext ctx) {
                                    echoed.completeExceptionally(new AssertionError(
                                            "the connection closed" + " after " + got.size() + " bytes came back"));
                                }
                            });
                        }
                    })
                    .connect(address)
                    .sync()
                    .channel();
            SslHandler tls = client.pipeline().get(SslHandler.class);
            long handshakeStart = System.nanoTime();
            try {
                tls.handshakeFuture().get(HANDSHAKE_TIMEOUT_MILLIS + 10_000, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                Thread.sleep(1000); // the server's side of it, if it failed first, names the cause
                if (echoed.isCompletedExceptionally()) {
                    echoed.join();
                }
                throw e;
            }
            assertEquals("TLSv1.3", tls.engine().getSession().getProtocol());
            long echoStart = System.nanoTime();
            for (int off = 0; off < payload.length; off += 100_000) {
                int n = Math.min(100_000, payload.length - off);
                client.write(client.alloc().buffer(n).writeBytes(payload, off, n))
                        .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            }
            client.flush();
            assertArrayEquals(
                    payload,
                    awaitEchoed(echoed, client, serverChild.get()),
                    kib + " KiB through TLS over RDMA and back");
            System.out.printf(
                    "[tls] %s: handshake %.1f s, %d KiB echoed in %.1f s%n",
                    device.name(), (echoStart - handshakeStart) / 1e9, kib, (System.nanoTime() - echoStart) / 1e9);
            client.close().sync();
        } finally {
            DeviceTestSupport.shutdown(clients, workers, boss);
        }
    }

    /**
     * The echo, within 300 s as before; every 60 s without it, both ends' stream state is printed (credits, send
     * buffers, pending writes, deliveries: what a stall is waiting for).
     */
    static byte[] awaitEchoed(CompletableFuture<byte[]> echoed, Channel client, Channel serverChild) throws Exception {
        for (int waited = 0; ; waited += 60) {
            try {
                return echoed.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                for (Channel ch : new Channel[] {client, serverChild}) {
                    if (ch instanceof RdmaChannel r) {
                        String state = r.eventLoop().submit(r::streamState).get(10, TimeUnit.SECONDS);
                        System.out.println("TLS echo not back after " + (waited + 60) + " s: " + state);
                    }
                }
                if (waited + 60 >= 300) {
                    throw e;
                }
            }
        }
    }
}
