package org.panamardma.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.testing.TcpHeldRdmaCmPort;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.cm.QueuePairOptions;

/** Netty echo over Soft-iWARP: clients on siw0, server on siw1; and the stream start word's hostile side. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpNettyEchoDeviceTest extends NettyEchoDeviceTests {
    private static final Duration CM_WAIT = Duration.ofSeconds(60);

    /**
     * A connect whose first local port a TCP socket of the host holds: Soft-iWARP cannot bind its TCP socket to it and
     * rdma_connect fails with EADDRINUSE (CI, stop of 2026-11-27, a gRPC connect). The connect tries again with a new
     * rdma_cm id, whose port is free, and the connection carries 256 KiB both ways, every byte checked. Before the
     * retry, this connect failed.
     */
    @Test
    void aConnectWhosePortATcpSocketHoldsTriesAnotherPort(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = DeviceTestSupport.serverAddress(device);
        EventLoopGroup server = DeviceTestSupport.group(1);
        EventLoopGroup clients = DeviceTestSupport.group(1);
        try {
            Channel listener = DeviceTestSupport.server(server)
                    .childHandler(new Echo())
                    .bind(address)
                    .sync()
                    .channel();
            Verifier v = new Verifier(0, 256 << 10, 4242L);
            Channel ch;
            int held;
            try (TcpHeldRdmaCmPort taken = new TcpHeldRdmaCmPort(() -> boundPort(address))) {
                held = taken.port();
                ch = DeviceTestSupport.client(clients)
                        .handler(v)
                        .connect(address)
                        .sync()
                        .channel();
            }
            assertEquals(
                    held + 1,
                    ((InetSocketAddress) ch.localAddress()).getPort(),
                    "the connection runs on the port after the one TCP held");
            v.go();
            awaitAll(List.of(v));
            ch.close().sync();
            listener.close().sync();
        } finally {
            DeviceTestSupport.shutdown(clients, server);
        }
    }

    /**
     * A server bound to port 0 whose first port a TCP socket of the host holds: rdma_cm picks the port, and
     * Soft-iWARP's listen cannot bind its TCP socket to it (EADDRINUSE from rdma_listen). The bind tries another
     * port; a client connects to the port the channel reports and the connection echoes 64 KiB, every byte checked.
     */
    @Test
    void aServerOnAnyPortWhoseFirstPortATcpSocketHoldsListensOnAnother(RdmaTestDevice device) throws Exception {
        InetSocketAddress peer = DeviceTestSupport.serverAddress(device);
        InetSocketAddress any = new InetSocketAddress(peer.getAddress(), 0);
        EventLoopGroup server = DeviceTestSupport.group(1);
        EventLoopGroup clients = DeviceTestSupport.group(1);
        try {
            Channel listener;
            int held;
            try (TcpHeldRdmaCmPort taken = new TcpHeldRdmaCmPort(() -> boundPort(peer))) {
                held = taken.port();
                listener = DeviceTestSupport.server(server)
                        .childHandler(new Echo())
                        .bind(any)
                        .sync()
                        .channel();
            }
            InetSocketAddress bound = (InetSocketAddress) listener.localAddress();
            assertEquals(held + 1, bound.getPort(), "the server listens on the port after the one TCP held");
            Verifier v = new Verifier(0, 64 << 10, 4343L);
            Channel ch = DeviceTestSupport.client(clients)
                    .handler(v)
                    .connect(bound)
                    .sync()
                    .channel();
            v.go();
            awaitAll(List.of(v));
            ch.close().sync();
            listener.close().sync();
        } finally {
            DeviceTestSupport.shutdown(clients, server);
        }
    }

    /** The local port a new rdma_cm id gets when it resolves {@code server}'s address; the id is closed. */
    private static int boundPort(InetSocketAddress server) {
        try (EventChannel events = EventChannel.create();
                CmId id = events.createId()) {
            CmConnector.resolveAddress(id, null, server, Duration.ofSeconds(10));
            return id.localPort();
        } catch (RdmaException e) {
            throw new IllegalStateException("resolving " + server + " on a new rdma_cm id", e);
        }
    }

    /**
     * A server that names a stream start word its client cannot read (a key it never registered): the client's
     * probe READ fails, and with it the connect, at once, not at the connect's timeout (120 s here). Had the client
     * sent a zero-length READ, siw would have answered it without looking at the key and the connect would succeed.
     * The server is raw rdma_cm and verbs speaking netty-rdma's private data, as a hostile or broken peer would.
     */
    @Test
    void aServerNamingAWordItsClientCannotReadFailsTheConnectAtOnce(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = DeviceTestSupport.serverAddress(device);
        EventLoopGroup clients = DeviceTestSupport.group(1);
        try (EventChannel events = EventChannel.create();
                CmId listener = events.createId()) {
            listener.bind(address);
            listener.listen(4);
            CompletableFuture<CmId> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    CmEvent request = events.expect(listener, CmEventType.CONNECT_REQUEST, CM_WAIT);
                    return request.id();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            ChannelFuture connect = DeviceTestSupport.client(clients)
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(address);
            CmId id = accepted.get(60, TimeUnit.SECONDS);
            ProtectionDomain pd = id.context().allocateProtectionDomain();
            CompletionQueue cq = id.context().createCompletionQueue(16);
            try {
                id.createQueuePair(pd, QueuePairOptions.of(cq).withQueueDepths(8, 8));
                byte[] lie = new ConnectPrivateData(16, 4096, 1 << 16, 0x00bad0ff, 0x10_0000L).encode();
                long t0 = System.nanoTime();
                id.accept(ConnectionParameters.DEFAULTS.withPrivateData(lie));
                assertTrue(connect.await(DeviceTestSupport.CONNECT_TIMEOUT_MILLIS + 30_000L), "the connect ended");
                long millis = (System.nanoTime() - t0) / 1_000_000;
                System.out.println(device + ": connect to a server naming a word it may not read: " + connect.cause()
                        + " after " + millis + " ms");
                assertFalse(connect.isSuccess(), "a connect whose probe cannot be answered did not fail");
                // siw answers the bad READ with a TERMINATE and the connection ends: the client sees either the
                // probe's failed completion or the disconnect first (both seen), and either fails the connect
                String why = String.valueOf(connect.cause().getMessage());
                assertTrue(
                        connect.cause() instanceof java.net.ConnectException
                                && (why.contains("stream start probe") || why.contains("DISCONNECTED")),
                        "the failure names the probe or the connection's end: " + connect.cause());
                assertTrue(millis < 30_000, "failed after " + millis + " ms, not at once");
            } finally {
                id.close(); // with its queue pair, before the CQ and the PD
                cq.close();
                pd.close();
            }
        } finally {
            DeviceTestSupport.shutdown(clients);
        }
    }
}
