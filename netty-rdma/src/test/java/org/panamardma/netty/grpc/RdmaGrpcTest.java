package org.panamardma.netty.grpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.MethodDescriptor;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamardma.netty.RdmaIoHandler;

/**
 * The gRPC helpers without a device: what they refuse before gRPC starts (another transport's event loops, an
 * unresolved address) and the byte-array methods' descriptors and marshaller. Calls over RDMA with them:
 * GrpcDeviceTests.
 */
class RdmaGrpcTest {
    private static final InetSocketAddress ADDRESS = new InetSocketAddress("127.0.0.1", 50051);
    private static EventLoopGroup rdma;
    private static EventLoopGroup nio;

    @BeforeAll
    static void groups() {
        rdma = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void shutdown() throws InterruptedException {
        rdma.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
        nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
    }

    @Test
    void anotherTransportsEventLoopsAreRefusedNamingTheFix() {
        IllegalArgumentException boss =
                assertThrows(IllegalArgumentException.class, () -> RdmaGrpc.serverBuilder(ADDRESS, nio, rdma));
        assertTrue(boss.getMessage().startsWith("boss: "), boss.getMessage());
        assertTrue(boss.getMessage().contains("RdmaIoHandler.newFactory()"), boss.getMessage());
        IllegalArgumentException workers =
                assertThrows(IllegalArgumentException.class, () -> RdmaGrpc.serverBuilder(ADDRESS, rdma, nio));
        assertTrue(workers.getMessage().startsWith("workers: "), workers.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RdmaGrpc.channelBuilder(ADDRESS, nio));
        assertThrows(NullPointerException.class, () -> RdmaGrpc.channelBuilder(ADDRESS, null));
    }

    @Test
    void anUnresolvedAddressIsRefused() {
        InetSocketAddress unresolved = InetSocketAddress.createUnresolved("rdma-server.invalid", 50051);
        assertThrows(IllegalArgumentException.class, () -> RdmaGrpc.channelBuilder(unresolved, rdma));
        assertThrows(IllegalArgumentException.class, () -> RdmaGrpc.serverBuilder(unresolved, rdma, rdma));
    }

    @Test
    void rdmaEventLoopsMakeBuildersThatBuild() {
        // building starts nothing: no device is needed until the server starts or the channel makes its first call
        io.grpc.Server server =
                RdmaGrpc.serverBuilder(ADDRESS, rdma, rdma).directExecutor().build();
        assertFalse(server.isShutdown());
        server.shutdownNow();
        io.grpc.ManagedChannel channel =
                RdmaGrpc.channelBuilder(ADDRESS, rdma).usePlaintext().build();
        channel.shutdownNow();
        assertTrue(channel.isShutdown());
    }

    @Test
    void byteArrayMethodsPassTheBytesThrough() throws IOException {
        MethodDescriptor<byte[], byte[]> m =
                RawBytes.method("test.Echo", "Bidi", MethodDescriptor.MethodType.BIDI_STREAMING);
        assertEquals("test.Echo/Bidi", m.getFullMethodName());
        assertEquals(MethodDescriptor.MethodType.BIDI_STREAMING, m.getType());
        byte[] message = {0, 1, 2, (byte) 0xff};
        try (InputStream in = m.streamRequest(message)) {
            assertArrayEquals(message, m.parseResponse(in));
        }
        assertArrayEquals(new byte[0], RawBytes.MARSHALLER.parse(new ByteArrayInputStream(new byte[0])));
    }

    @Test
    void aFailingStreamIsAnUncheckedIoException() {
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("stream broken");
            }
        };
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> RawBytes.MARSHALLER.parse(failing));
        assertEquals("stream broken", e.getCause().getMessage());
    }
}
