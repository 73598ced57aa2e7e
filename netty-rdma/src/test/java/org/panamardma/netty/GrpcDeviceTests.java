package org.panamardma.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.panamardma.netty.grpc.RawBytes;
import org.panamardma.netty.grpc.RdmaGrpc;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testing.KernelLogOnFailure;

/**
 * gRPC-java unchanged over the RDMA channels: {@code NettyServerBuilder} / {@code NettyChannelBuilder} with
 * {@link RdmaServerChannel} / {@link RdmaChannel} and event loop groups of {@link RdmaIoHandler}s. Unary, server-,
 * client- and bidi-streaming calls, a deadline that expires on the server, and a cancellation the server sees. The
 * messages are bytes (a marshaller of byte[]: the transport is under test, not protobuf).
 */
@ExtendWith(KernelLogOnFailure.class)
abstract class GrpcDeviceTests {
    static final String SERVICE = "panama.rdma.test.Echo";
    static final MethodDescriptor<byte[], byte[]> UNARY = method("Unary", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<byte[], byte[]> SERVER_STREAM =
            method("ServerStream", MethodDescriptor.MethodType.SERVER_STREAMING);
    static final MethodDescriptor<byte[], byte[]> CLIENT_STREAM =
            method("ClientStream", MethodDescriptor.MethodType.CLIENT_STREAMING);
    static final MethodDescriptor<byte[], byte[]> BIDI = method("Bidi", MethodDescriptor.MethodType.BIDI_STREAMING);
    static final MethodDescriptor<byte[], byte[]> SLOW = method("Slow", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<byte[], byte[]> ENDLESS =
            method("Endless", MethodDescriptor.MethodType.SERVER_STREAMING);

    static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return RawBytes.method(SERVICE, name, type);
    }

    final CompletableFuture<Void> slowStarted = new CompletableFuture<>();
    final CompletableFuture<Void> slowCancelled = new CompletableFuture<>();
    final CompletableFuture<Integer> endlessCancelledAfter = new CompletableFuture<>();
    EventLoopGroup boss;
    EventLoopGroup workers;
    EventLoopGroup clients;
    Server server;
    ManagedChannel channel;

    ServerServiceDefinition service() {
        return ServerServiceDefinition.builder(SERVICE)
                .addMethod(UNARY, ServerCalls.asyncUnaryCall((req, out) -> {
                    out.onNext(reversed(req));
                    out.onCompleted();
                }))
                .addMethod(SERVER_STREAM, ServerCalls.asyncServerStreamingCall((req, out) -> {
                    ByteBuffer b = ByteBuffer.wrap(req);
                    int count = b.getInt();
                    int size = b.getInt();
                    for (int i = 0; i < count; i++) {
                        out.onNext(message(i, size));
                    }
                    out.onCompleted();
                }))
                .addMethod(CLIENT_STREAM, ServerCalls.asyncClientStreamingCall(out -> new StreamObserver<>() {
                    long bytes;
                    int messages;

                    @Override
                    public void onNext(byte[] value) {
                        bytes += value.length;
                        messages++;
                    }

                    @Override
                    public void onError(Throwable t) {}

                    @Override
                    public void onCompleted() {
                        out.onNext(ByteBuffer.allocate(12)
                                .putInt(messages)
                                .putLong(bytes)
                                .array());
                        out.onCompleted();
                    }
                }))
                .addMethod(BIDI, ServerCalls.asyncBidiStreamingCall(out -> new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        out.onNext(reversed(value));
                    }

                    @Override
                    public void onError(Throwable t) {}

                    @Override
                    public void onCompleted() {
                        out.onCompleted();
                    }
                }))
                .addMethod(SLOW, ServerCalls.asyncUnaryCall((req, out) -> {
                    // never answers: the client's deadline ends the call, and the server must hear of it
                    ((ServerCallStreamObserver<byte[]>) out).setOnCancelHandler(() -> slowCancelled.complete(null));
                    slowStarted.complete(null);
                }))
                .addMethod(ENDLESS, ServerCalls.asyncServerStreamingCall((req, out) -> {
                    ServerCallStreamObserver<byte[]> o = (ServerCallStreamObserver<byte[]>) out;
                    int[] sent = new int[1];
                    o.setOnCancelHandler(() -> endlessCancelledAfter.complete(sent[0]));
                    o.setOnReadyHandler(() -> {
                        while (o.isReady() && !o.isCancelled()) {
                            o.onNext(message(sent[0]++, 256));
                        }
                    });
                }))
                .build();
    }

    static byte[] reversed(byte[] b) {
        byte[] r = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            r[i] = b[b.length - 1 - i];
        }
        return r;
    }

    static byte[] message(int index, int size) {
        byte[] m = new byte[size];
        for (int i = 0; i < size; i++) {
            m[i] = DeviceTestSupport.pattern(index, i);
        }
        return m;
    }

    @BeforeEach
    void start(RdmaTestDevice device, TestInfo info) throws Exception {
        InetSocketAddress address = DeviceTestSupport.serverAddress(device);
        boss = DeviceTestSupport.group(1);
        workers = DeviceTestSupport.group(2);
        clients = DeviceTestSupport.group(1);
        // grpc-netty's builders with the RDMA channel types and event loops (RdmaGrpc sets exactly those)
        server = RdmaGrpc.serverBuilder(address, boss, workers)
                .addService(service())
                .build()
                .start();
        channel = RdmaGrpc.channelBuilder(address, clients).usePlaintext().build();
    }

    @AfterEach
    void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
        }
        DeviceTestSupport.shutdown(clients, workers, boss);
    }

    @Test
    void unaryCallsOfManySizes() {
        Random r = new Random(1);
        for (int size : new int[] {0, 1, 100, 4096, 16 * 1024, 100_000, 1 << 20, 3 << 20}) {
            byte[] req = new byte[size];
            r.nextBytes(req);
            byte[] reply = ClientCalls.blockingUnaryCall(
                    channel, UNARY, CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS), req);
            assertArrayEquals(reversed(req), reply, "unary echo of " + size + " bytes");
        }
    }

    @Test
    void serverStreaming() {
        byte[] req = ByteBuffer.allocate(8).putInt(500).putInt(1000).array();
        Iterator<byte[]> replies = ClientCalls.blockingServerStreamingCall(
                channel, SERVER_STREAM, CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS), req);
        int n = 0;
        while (replies.hasNext()) {
            assertArrayEquals(message(n, 1000), replies.next(), "message " + n);
            n++;
        }
        assertEquals(500, n);
    }

    @Test
    void clientStreaming() throws Exception {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        StreamObserver<byte[]> requests = ClientCalls.asyncClientStreamingCall(
                channel.newCall(CLIENT_STREAM, CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS)),
                observer(result));
        long bytes = 0;
        for (int i = 0; i < 300; i++) {
            byte[] m = message(i, 1 + i * 37);
            bytes += m.length;
            requests.onNext(m);
        }
        requests.onCompleted();
        ByteBuffer summary = ByteBuffer.wrap(result.get(120, TimeUnit.SECONDS));
        assertEquals(300, summary.getInt());
        assertEquals(bytes, summary.getLong());
    }

    @Test
    void bidiStreaming() throws Exception {
        List<byte[]> received = new ArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(
                channel.newCall(BIDI, CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS)),
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        synchronized (received) {
                            received.add(value);
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(null);
                    }
                });
        for (int i = 0; i < 200; i++) {
            requests.onNext(message(i, 10 + i * 100));
        }
        requests.onCompleted();
        done.get(120, TimeUnit.SECONDS);
        assertEquals(200, received.size());
        for (int i = 0; i < 200; i++) {
            assertArrayEquals(reversed(message(i, 10 + i * 100)), received.get(i), "reply " + i);
        }
    }

    @Test
    void aDeadlineEndsTheCallOnBothSides() throws Exception {
        // connected first: the channel connects on its first call, which under emulation takes seconds, and a
        // deadline that expired before the call left would test nothing on the server
        assertArrayEquals(
                new byte[] {1},
                ClientCalls.blockingUnaryCall(
                        channel, UNARY, CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS), new byte[] {1}));
        long start = System.nanoTime();
        StatusRuntimeException e = assertThrows(
                StatusRuntimeException.class,
                () -> ClientCalls.blockingUnaryCall(
                        channel, SLOW, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), new byte[10]));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode());
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(4900), "not before the deadline");
        assertTrue(slowStarted.isDone(), "the call reached the server's handler before its deadline");
        slowCancelled.get(60, TimeUnit.SECONDS); // the server's handler learnt that the call is over
        // the connection is still good for the next call
        assertArrayEquals(
                new byte[] {3, 2, 1},
                ClientCalls.blockingUnaryCall(
                        channel, UNARY, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), new byte[] {1, 2, 3
                        }));
    }

    @Test
    void aCancelledStreamStopsTheServer() throws Exception {
        ClientCall<byte[], byte[]> call = channel.newCall(ENDLESS, CallOptions.DEFAULT);
        CountDownLatch fifty = new CountDownLatch(50);
        CompletableFuture<Status> closed = new CompletableFuture<>();
        call.start(
                new ClientCall.Listener<>() {
                    @Override
                    public void onMessage(byte[] message) {
                        fifty.countDown();
                        call.request(1);
                    }

                    @Override
                    public void onClose(Status status, Metadata trailers) {
                        closed.complete(status);
                    }
                },
                new Metadata());
        call.request(1);
        call.sendMessage(new byte[1]);
        call.halfClose();
        assertTrue(fifty.await(60, TimeUnit.SECONDS), "the stream flows");
        call.cancel("enough", null);
        assertEquals(Status.Code.CANCELLED, closed.get(60, TimeUnit.SECONDS).getCode());
        int sent = endlessCancelledAfter.get(60, TimeUnit.SECONDS);
        assertTrue(sent >= 50, "the server stopped after the cancel reached it (" + sent + " sent)");
    }

    static StreamObserver<byte[]> observer(CompletableFuture<byte[]> result) {
        return new StreamObserver<>() {
            @Override
            public void onNext(byte[] value) {
                result.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                result.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {}
        };
    }
}
