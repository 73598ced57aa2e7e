package org.panamardma.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testing.KernelLogOnFailure;

/**
 * Netty echo over RDMA: 16 connections at once each write a stream of random-sized buffers (1 B to 4 MiB) and check
 * every byte that comes back. The total is {@code -Dpanama.netty.echoMiB} (default 8 MiB, for the time CI has under
 * emulation; the 1 GiB was run once with the property, see the module README).
 */
@ExtendWith(KernelLogOnFailure.class)
abstract class NettyEchoDeviceTests {
    static final int CONNECTIONS = 16;
    static final int MAX_WRITE = 4 << 20;

    /** How long the echo may go without a byte coming back before the test calls it hung (not a speed limit). */
    static final long STALL_SECONDS = 300;

    /** The echo, counting what the server's connections did: the pools they used, bulk transfers, closes. */
    @ChannelHandler.Sharable
    static final class Echo extends EchoBack {
        final AtomicLong bulkReceived = new AtomicLong();
        final Set<SlabPool> pools = ConcurrentHashMap.newKeySet();
        final AtomicInteger closed = new AtomicInteger();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            pools.add(((RdmaChannel) ctx.channel()).registeredPool());
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            bulkReceived.addAndGet(((RdmaChannel) ctx.channel()).bulkTransfersReceived());
            closed.incrementAndGet();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            var _ = ctx.close();
        }
    }

    /** Writes its stream while the channel is writable and checks every byte echoed back. */
    static final class Verifier extends ChannelInboundHandlerAdapter {
        final int connection;
        final long total;
        final Random sizes;
        final CompletableFuture<Long> done = new CompletableFuture<>();
        long written;
        volatile long received;
        /** Time this connection's event loop spent making and checking the bytes (the test's share, not the transport's). */
        long patternNanos;

        Verifier(int connection, long total, long seed) {
            this.connection = connection;
            this.total = total;
            this.sizes = new Random(seed);
        }

        private ChannelHandlerContext ctx;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        /** Starts the stream (once every connection is up, so that the time measured is the transfer's). */
        void go() {
            ctx.executor().execute(() -> writeMore(ctx));
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            writeMore(ctx);
        }

        private void writeMore(ChannelHandlerContext ctx) {
            boolean wrote = false;
            while (written < total && ctx.channel().isWritable()) {
                // sizes spread over every scale from 1 B to 4 MiB: a uniform exponent, then a uniform mantissa
                int bits = sizes.nextInt(23);
                int size = (int) Math.min(total - written, Math.max(1, (1L << bits) + sizes.nextInt(1 << bits)));
                size = Math.min(size, MAX_WRITE);
                ByteBuf b = ctx.alloc().directBuffer(size);
                long t0 = System.nanoTime();
                DeviceTestSupport.fill(b, connection, written, size);
                patternNanos += System.nanoTime() - t0;
                written += size;
                ctx.write(b).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
                wrote = true;
            }
            if (wrote) {
                ctx.flush();
            }
        }

        // only this channel's event loop writes received (Netty runs a channel's handlers on one thread); it is
        // volatile for the progress the test thread reads
        @Override
        @SuppressWarnings("NonAtomicVolatileUpdate")
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                int n = b.readableBytes();
                int at = b.readerIndex();
                long t0 = System.nanoTime();
                int bad = DeviceTestSupport.mismatch(b, at, connection, received, n);
                patternNanos += System.nanoTime() - t0;
                if (bad >= 0) {
                    done.completeExceptionally(new AssertionError("connection " + connection + ": byte "
                            + (received + bad) + " is " + b.getByte(at + bad) + ", expected "
                            + DeviceTestSupport.pattern(connection, received + bad)));
                    var _ = ctx.close();
                    return;
                }
                received += n;
                if (received == total) {
                    done.complete(received);
                } else if (received > total) {
                    done.completeExceptionally(new AssertionError("more bytes echoed than sent: " + received));
                }
            } finally {
                b.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            var _ = ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new AssertionError(
                    "connection " + connection + " closed after " + received + " of " + total + " bytes"));
        }
    }

    /** Waits for every stream to come back, for as long as bytes keep coming (a hang guard, not a deadline). */
    static void awaitAll(List<Verifier> verifiers) throws Exception {
        long last = -1;
        long lastProgress = System.nanoTime();
        for (Verifier v : verifiers) {
            while (true) {
                try {
                    assertEquals(v.total, v.done.get(10, TimeUnit.SECONDS), "every byte came back");
                    break;
                } catch (TimeoutException e) {
                    long now = 0;
                    for (Verifier w : verifiers) {
                        now += w.received;
                    }
                    if (now != last) {
                        last = now;
                        lastProgress = System.nanoTime();
                    } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(STALL_SECONDS)) {
                        fail("no byte echoed for " + STALL_SECONDS + " s; " + now + " bytes back of "
                                + v.total * verifiers.size());
                    }
                }
            }
        }
    }

    /** The server's connections closed and no chunk of any pool still handed out (hang guard: 120 s). */
    static void awaitPoolsIdle(Echo echo, Set<SlabPool> pools) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            long inUse = 0;
            for (SlabPool p : pools) {
                inUse += p.chunksInUse();
            }
            if (echo.closed.get() == CONNECTIONS && inUse == 0) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                fail(inUse + " chunks of the registered pools still handed out after every connection closed ("
                        + echo.closed.get() + " of " + CONNECTIONS + " server connections closed)");
            }
            Thread.sleep(100);
        }
    }

    @Test
    void echoesRandomSizesOverSixteenConnectionsWithEveryByteChecked(RdmaTestDevice device) throws Exception {
        long totalMiB = Long.getLong("panama.netty.echoMiB", 8);
        long perConnection = (totalMiB << 20) / CONNECTIONS;
        InetSocketAddress address = DeviceTestSupport.serverAddress(device);
        EventLoopGroup boss = DeviceTestSupport.group(1);
        EventLoopGroup workers = DeviceTestSupport.group(2);
        EventLoopGroup clients = DeviceTestSupport.group(2);
        Echo echo = new Echo();
        try {
            Channel server = DeviceTestSupport.server(boss, workers)
                    .childHandler(echo)
                    .bind(address)
                    .sync()
                    .channel();
            List<Verifier> verifiers = new ArrayList<>();
            List<Channel> channels = new ArrayList<>();
            long connectStart = System.nanoTime();
            for (int c = 0; c < CONNECTIONS; c++) {
                Verifier v = new Verifier(c, perConnection, 1000L + c);
                verifiers.add(v);
                channels.add(DeviceTestSupport.client(clients)
                        .handler(v)
                        .connect(address)
                        .sync()
                        .channel());
            }
            double connectSeconds = (System.nanoTime() - connectStart) / 1e9;
            for (Channel ch : channels) {
                assertEquals(device.name(), ((RdmaChannel) ch).deviceName(), "the client runs on the device tested");
            }
            long start = System.nanoTime();
            verifiers.forEach(Verifier::go);
            awaitAll(verifiers);
            double seconds = (System.nanoTime() - start) / 1e9;
            double patternSeconds =
                    verifiers.stream().mapToLong(v -> v.patternNanos).sum() / 1e9;
            long bulkSent = 0;
            Set<SlabPool> pools = new HashSet<>(echo.pools);
            for (Channel ch : channels) {
                bulkSent += ((RdmaChannel) ch).bulkTransfersReceived();
                pools.add(((RdmaChannel) ch).registeredPool());
                ch.close().sync();
            }
            server.close().sync();
            // every buffer of the registered pools comes back once the connections are gone: a transfer's source
            // is released when its DONE completes (or, at close, once the queue pair is destroyed)
            awaitPoolsIdle(echo, pools);
            System.out.printf(
                    "netty echo on %s: %d connections (connected in %.1f s), %d MiB each way in %.1f s, "
                            + "%.1f MiB/s each way; the client loops spent %.1f s of it making and checking bytes%n",
                    device.name(), CONNECTIONS, connectSeconds, totalMiB, seconds, totalMiB / seconds, patternSeconds);
            assertTrue(bulkSent > 0, "large echoes came back by RDMA WRITE into granted buffers");
        } finally {
            DeviceTestSupport.shutdown(clients, workers, boss);
        }
        assertTrue(echo.bulkReceived.get() > 0, "large writes reached the server by RDMA WRITE");
    }

    /**
     * One group as the server's acceptor and its connections' worker ({@code ServerBootstrap.group(g)}, as many
     * programs and bench.sh do): the listener and its children share one event loop, so a child is registered and
     * accepted inside the listener's own dispatch of the CONNECT_REQUEST. Two connections one after the other, each
     * echoing 512 KiB (SENDs and bulk transfers), every byte checked; the first failed to set up on rxe before (EINVAL
     * from rdma_create_qp_ex) and its client waited out its connect timeout.
     */
    @Test
    void oneGroupAcceptsAndServesItsConnections(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = DeviceTestSupport.serverAddress(device);
        EventLoopGroup server = DeviceTestSupport.group(1);
        EventLoopGroup clients = DeviceTestSupport.group(1);
        Echo echo = new Echo();
        try {
            Channel listener = DeviceTestSupport.server(server)
                    .childHandler(echo)
                    .bind(address)
                    .sync()
                    .channel();
            for (int c = 0; c < 2; c++) {
                Verifier v = new Verifier(c, 512 << 10, 3000L + c);
                Channel ch = DeviceTestSupport.client(clients)
                        .handler(v)
                        .connect(address)
                        .sync()
                        .channel();
                assertEquals(device.name(), ((RdmaChannel) ch).deviceName(), "the client runs on the device tested");
                v.go();
                awaitAll(List.of(v));
                ch.close().sync();
            }
            listener.close().sync();
        } finally {
            DeviceTestSupport.shutdown(clients, server);
        }
        assertEquals(2, echo.closed.get(), "both server connections were served and closed");
    }

    /** A server that speaks first: on channelActive it writes {@link #GREETING_WRITES} buffers and flushes once. */
    @ChannelHandler.Sharable
    static final class Greeter extends ChannelInboundHandlerAdapter {
        static final int GREETING_WRITES = 24;
        static final int WRITE_SIZE = 2048;
        static final int GREETING = GREETING_WRITES * WRITE_SIZE;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            for (int i = 0; i < GREETING_WRITES; i++) {
                ByteBuf b = ctx.alloc().directBuffer(WRITE_SIZE);
                DeviceTestSupport.fill(b, 7, (long) i * WRITE_SIZE, WRITE_SIZE);
                ctx.write(b).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            }
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            var _ = ctx.close();
        }
    }

    /** Reads the greeting and checks every byte of it. */
    static final class GreetingReader extends ChannelInboundHandlerAdapter {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        long received;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                int n = b.readableBytes();
                int bad = DeviceTestSupport.mismatch(b, b.readerIndex(), 7, received, n);
                if (bad >= 0) {
                    done.completeExceptionally(new AssertionError("greeting byte " + (received + bad) + " wrong"));
                }
                received += n;
                if (received == Greeter.GREETING) {
                    done.complete(null);
                }
            } finally {
                b.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new AssertionError("closed after " + received + " bytes of the greeting"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
        }
    }

    /**
     * A server whose first SENDs go out while a client's connect is still being set up. On Soft-iWARP the client
     * confirms the stream has started by reading from the server ({@link ClientConnector}'s probe), and siw answers a
     * zero-length READ that arrives while its queue pair is sending with the length and memory of the message it sent
     * before (siw_qp_tx.c: {@code siw_activate_tx} leaves {@code sge[0]} of a zero-length READ's response as the last
     * request left it, {@code siw_qp_sq_proc_tx} then sends it as one SGE): the client got 35 bytes of a READ that
     * asked for none, terminated the connection ("rresp len: 35 != 0") and the connect failed with GENERAL_ERR
     * (rehearsal r17, gRPC, whose server sends its SETTINGS at once). Each of {@link #SPEAKS_FIRST_CONNECTS} connects
     * must come up and read the whole greeting.
     */
    static final int SPEAKS_FIRST_CONNECTS = 40;

    @Test
    void aServerThatSpeaksFirstWhileTheClientConnectsIsHeardWhole(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = DeviceTestSupport.serverAddress(device);
        EventLoopGroup server = DeviceTestSupport.group(1);
        EventLoopGroup clients = DeviceTestSupport.group(1);
        try {
            Channel listener = DeviceTestSupport.server(server)
                    .childHandler(new Greeter())
                    .bind(address)
                    .sync()
                    .channel();
            for (int c = 0; c < SPEAKS_FIRST_CONNECTS; c++) {
                GreetingReader reader = new GreetingReader();
                ChannelFuture connect =
                        DeviceTestSupport.client(clients).handler(reader).connect(address);
                assertTrue(
                        connect.await(DeviceTestSupport.CONNECT_TIMEOUT_MILLIS + 30_000L), "connect " + c + " ended");
                if (!connect.isSuccess()) {
                    throw new AssertionError(
                            "connect " + c + " of " + SPEAKS_FIRST_CONNECTS + " failed", connect.cause());
                }
                reader.done.get(60, TimeUnit.SECONDS);
                connect.channel().close().sync();
            }
            listener.close().sync();
        } finally {
            DeviceTestSupport.shutdown(clients, server);
        }
    }

    /**
     * The hostile side of setting up a server's connection: a child that cannot be set up (here its worker group is
     * NIO's, which cannot register an RDMA channel) is rejected, so the client's connect fails at once, naming the
     * server's reason, instead of waiting out its connect timeout (120 s here; the old code left the request
     * unanswered and the client to that timeout). The server stays up and serves the next, good configuration.
     */
    @Test
    void aConnectionTheServerCannotSetUpIsRefused(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = DeviceTestSupport.serverAddress(device);
        EventLoopGroup boss = DeviceTestSupport.group(1);
        EventLoopGroup wrongWorkers =
                new io.netty.channel.MultiThreadIoEventLoopGroup(1, io.netty.channel.nio.NioIoHandler.newFactory());
        EventLoopGroup clients = DeviceTestSupport.group(1);
        try {
            Channel listener = DeviceTestSupport.server(boss, wrongWorkers)
                    .childHandler(new Echo())
                    .bind(address)
                    .sync()
                    .channel();
            io.netty.channel.ChannelFuture connect = DeviceTestSupport.client(clients)
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(address);
            assertTrue(connect.await(DeviceTestSupport.CONNECT_TIMEOUT_MILLIS + 30_000L), "the connect ended");
            Throwable cause = connect.cause();
            assertTrue(
                    cause instanceof java.net.ConnectException
                            && !(cause instanceof io.netty.channel.ConnectTimeoutException),
                    "refused, not timed out: " + cause);
            assertTrue(
                    cause.getMessage().contains("REJECTED")
                            && cause.getMessage().contains("could not set the connection up"),
                    "the server's reason reached the client: " + cause);
            assertEquals(0, ((RdmaServerChannel) listener).connectionCount(), "the refused child is not counted");
            listener.close().sync();
        } finally {
            DeviceTestSupport.shutdown(clients, wrongWorkers, boss);
        }
    }

    /** Counts and checksums what arrives until the FIN, then answers (count, CRC32, input shut down) and closes. */
    static final class CountUntilFin extends ChannelInboundHandlerAdapter {
        private final CRC32 crc = new CRC32();
        private long count;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            count += b.readableBytes();
            crc.update(b.nioBuffer());
            b.release();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof ChannelInputShutdownEvent) {
                boolean shut = ((DuplexChannel) ctx.channel()).isInputShutdown();
                ByteBuf answer = ctx.alloc().buffer(17).writeLong(count).writeLong(crc.getValue());
                answer.writeBoolean(shut);
                ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }

    /**
     * Half-close: {@code shutdownOutput()} right after a write of 300 KiB (SENDs and a bulk transfer) completes only
     * once that write has gone, and the peer (ALLOW_HALF_CLOSURE) receives every byte, then the FIN as its input
     * shut down, and still answers: this side reads after shutting its output. The hostile side: a write after the
     * shutdown fails and sends nothing (the peer counts exactly what was written before). No test covered
     * shutdownOutput before; it moved into OutputShutdown.
     */
    @Test
    void shutdownOutputSendsTheFinAfterWhatWasWrittenAndReadingGoesOn(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = DeviceTestSupport.serverAddress(device);
        EventLoopGroup server = DeviceTestSupport.group(1);
        EventLoopGroup clients = DeviceTestSupport.group(1);
        int length = 300 << 10;
        try {
            Channel listener = DeviceTestSupport.server(server)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childHandler(new CountUntilFin())
                    .bind(address)
                    .sync()
                    .channel();
            CompletableFuture<ByteBuf> answer = new CompletableFuture<>();
            Channel ch = DeviceTestSupport.client(clients)
                    .handler(new ChannelInboundHandlerAdapter() {
                        private final ByteBuf got = Unpooled.buffer(17);

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            got.writeBytes((ByteBuf) msg);
                            ((ByteBuf) msg).release();
                            if (got.readableBytes() >= 17) {
                                answer.complete(got);
                            }
                        }
                    })
                    .connect(address)
                    .sync()
                    .channel();
            ByteBuf data = ch.alloc().directBuffer(length);
            DeviceTestSupport.fill(data, 5, 0, length);
            CRC32 sent = new CRC32();
            sent.update(data.nioBuffer());
            ChannelFuture written = ch.writeAndFlush(data);
            RdmaChannel rdma = (RdmaChannel) ch;
            rdma.shutdownOutput().sync();
            assertTrue(written.isSuccess(), "the write before the shutdown went first");
            assertTrue(rdma.isOutputShutdown());
            ChannelFuture late = ch.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
            assertTrue(late.await(30, TimeUnit.SECONDS), "the late write completes");
            assertFalse(late.isSuccess(), "a write after shutdownOutput fails");
            ByteBuf a = answer.get(STALL_SECONDS, TimeUnit.SECONDS);
            assertEquals(length, a.readLong(), "the peer received every byte written before the FIN, and no more");
            assertEquals(sent.getValue(), a.readLong(), "the bytes are the ones written");
            assertTrue(a.readBoolean(), "the FIN shut the peer's input down");
            ch.closeFuture().await(60, TimeUnit.SECONDS);
            listener.close().sync();
        } finally {
            DeviceTestSupport.shutdown(clients, server);
        }
    }
}
