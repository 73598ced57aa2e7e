package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.CallArrival;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.xdr.XdrDecoder;

/**
 * A service that takes calls before their Read chunks' data arrived ({@link RpcService#takesArrivingData}) gets them
 * while the RDMA Reads run, and every reader of the data waits for it: the procedures registered for it, after
 * {@link CallArrival#await}; every other procedure, and every other service, only once it is there. Whatever the
 * procedure does, the call is answered only after its data arrived, and not at all if it never does. The Reads are
 * held by the test ({@link HeldReads}) until it lets them land.
 */
class CallsBeforeTheirDataTest {
    private static final int XID = 0x5eed_0001;
    private static final int PROGRAM = EchoProgram.PROGRAM;
    private static final int VERSION = EchoProgram.VERSION;
    /** Echoes its opaque argument; registered to take its call before the data arrived. */
    private static final int EARLY_ECHO = 7;
    /** The same, registered as any procedure. */
    private static final int LATE_ECHO = 8;

    private static final ConnectionSettings SETTINGS = new ConnectionSettings(4096, 1024, 8, 1 << 20, 1 << 20, 4);
    private static final byte[] PAYLOAD = EchoProgram.pattern(64, 3);

    /** The client's memory, whose Read chunk the held Reads take the data from when let go. */
    private final InMemoryChunkTransfers client = new InMemoryChunkTransfers();

    private final HeldReads reads = new HeldReads(client);

    /** What each procedure saw when it began: whether the data had been let go, and whether it was there. */
    private final AtomicReference<String> seenAtStart = new AtomicReference<>();

    private final CountDownLatch started = new CountDownLatch(1);
    private final AtomicReference<Throwable> awaitFailure = new AtomicReference<>();

    /** RDMA Reads that land when the test lets them go ({@link #release}), or fail ({@link #fail}). */
    private static final class HeldReads implements ChunkTransfers {
        private final InMemoryChunkTransfers client;
        private final CompletableFuture<Void> gate = new CompletableFuture<>();
        private volatile boolean released;

        HeldReads(InMemoryChunkTransfers client) {
            this.client = client;
        }

        /** A Read waited for: held as well, until let go. */
        @Override
        public void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
            try {
                startRead(segments, destination).join();
            } catch (CompletionException e) {
                throw new IOException(e.getCause());
            }
        }

        @Override
        public CompletableFuture<Void> startRead(List<RdmaSegment> segments, MemorySegment destination) {
            return gate.thenRun(() -> {
                try {
                    client.read(segments, destination);
                } catch (IOException e) {
                    throw new CompletionException(e);
                }
            });
        }

        @Override
        public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
            client.write(source, segments);
        }

        void release() {
            released = true;
            gate.complete(null);
        }

        void fail() {
            gate.completeExceptionally(new IOException("RDMA Read failed: remote access error"));
        }
    }

    /** The echo procedures: each records what it saw at its start, the early one waits for its data first. */
    private RpcDispatcher dispatcher(boolean earlyFailsAtOnce) {
        return RpcDispatcher.builder()
                .registerBeforeDataArrives(
                        PROGRAM,
                        VERSION,
                        EARLY_ECHO,
                        in -> in.getOpaque(EchoProgram.MAX),
                        (MemorySegment data, RpcCall c) -> {
                            CallArrival arrival = CallArrival.current(); // on the transport's thread
                            record(arrival);
                            if (earlyFailsAtOnce) {
                                throw new IllegalStateException("the procedure fails before it needs its data");
                            }
                            try {
                                arrival.await();
                            } catch (IOException e) {
                                awaitFailure.set(e);
                                throw e;
                            }
                            byte[] copy = data.toArray(ValueLayout.JAVA_BYTE);
                            return out -> out.putOpaque(copy, EchoProgram.MAX);
                        })
                .register(
                        PROGRAM,
                        VERSION,
                        LATE_ECHO,
                        in -> in.getOpaque(EchoProgram.MAX),
                        (MemorySegment data, RpcCall c) -> {
                            record(CallArrival.current());
                            byte[] copy = data.toArray(ValueLayout.JAVA_BYTE);
                            return out -> out.putOpaque(copy, EchoProgram.MAX);
                        })
                .build();
    }

    private void record(CallArrival arrival) {
        seenAtStart.set("released=" + reads.released + " arrived=" + arrival.isDone());
        started.countDown();
    }

    private RpcRdmaCallHandler handler(RpcService service) {
        return new RpcRdmaCallHandler(
                service, new RpcRdmaHeaderDecoder(), SETTINGS, reads, new ServerStatistics(), TransportProgram.NONE);
    }

    /**
     * An echo call whose argument's data (the opaque's bytes, after its length word) comes in a Read chunk, as an NFS
     * WRITE's data does; {@code chunkAt} moves the chunk's position (with the bytes it carries) elsewhere.
     */
    private byte[] callWithReadChunk(int procedure, int chunkAt) {
        byte[] full = RpcRdmaCallHandlerTest.echoCall(procedure, PAYLOAD);
        int dataAt = full.length - PAYLOAD.length; // PAYLOAD's length is a multiple of 4: no roundup
        int from = chunkAt < 0 ? dataAt : chunkAt;
        int length = chunkAt < 0 ? PAYLOAD.length : 8;
        RdmaSegment chunk = client.register(Arrays.copyOfRange(full, from, from + length));
        byte[] reduced = RpcRdmaCallHandlerTest.concat(
                Arrays.copyOfRange(full, 0, from), Arrays.copyOfRange(full, from + length, full.length));
        RdmaMsg header =
                new RdmaMsg(XID, 4, new ChunkLists(List.of(new ReadSegment(from, chunk)), List.of(), Optional.empty()));
        return RpcRdmaCallHandlerTest.concat(RpcRdmaHeaderEncoder.toBytes(header), reduced);
    }

    /** Handles {@code message} on a thread of its own (the test holds its Reads meanwhile); returns the reply. */
    private static CompletableFuture<MemorySegment> handleAsync(RpcRdmaCallHandler handler, byte[] message) {
        CompletableFuture<MemorySegment> reply = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                byte[] send = new byte[SETTINGS.sendInline()];
                RpcRdmaCallHandler.Outcome o =
                        handler.handle(MemorySegment.ofArray(message), MemorySegment.ofArray(send));
                MemorySegment sent = MemorySegment.ofArray(send).asSlice(0, o.sendLength());
                DecodedHeader d = new RpcRdmaHeaderDecoder().decode(sent);
                reply.complete(d.rpcMessage(sent));
            } catch (Throwable t) {
                reply.completeExceptionally(t);
            }
        });
        return reply;
    }

    private static byte[] echoed(MemorySegment reply) {
        XdrDecoder in = new XdrDecoder(reply);
        assertEquals(AcceptedReply.success(XID, OpaqueAuth.NONE), RpcMessageCodec.decode(in));
        return in.getOpaqueBytes(EchoProgram.MAX);
    }

    /** Gives a wrong implementation the time to run what must wait, then lets the Reads land. */
    private void holdThenRelease(CompletableFuture<MemorySegment> reply) throws InterruptedException {
        Thread.sleep(200);
        assertFalse(reply.isDone(), "answered before the call's data arrived");
        reads.release();
    }

    @Test
    void aProcedureRegisteredForItStartsWhileItsDataIsArrivingAndReadsItAfterWaiting() throws Exception {
        CompletableFuture<MemorySegment> reply =
                handleAsync(handler(dispatcher(false)), callWithReadChunk(EARLY_ECHO, -1));
        assertTrue(started.await(10, TimeUnit.SECONDS), "the procedure did not start while its Reads were held");
        assertEquals("released=false arrived=false", seenAtStart.get());
        holdThenRelease(reply);
        assertArrayEquals(PAYLOAD, echoed(reply.get(10, TimeUnit.SECONDS)), "the data it read after waiting");
    }

    @Test
    void anyOtherProcedureOfTheSameServiceRunsOnlyOnceTheDataArrived() throws Exception {
        CompletableFuture<MemorySegment> reply =
                handleAsync(handler(dispatcher(false)), callWithReadChunk(LATE_ECHO, -1));
        holdThenRelease(reply);
        assertArrayEquals(PAYLOAD, echoed(reply.get(10, TimeUnit.SECONDS)));
        assertEquals("released=true arrived=true", seenAtStart.get());
    }

    @Test
    void aServiceThatDoesNotTakeArrivingDataGetsOnlyWholeCalls() throws Exception {
        RpcDispatcher echo = dispatcher(false);
        RpcService plain = (call, out) -> echo.serve(call, out); // takesArrivingData(): the default, false
        CompletableFuture<MemorySegment> reply = handleAsync(handler(plain), callWithReadChunk(EARLY_ECHO, -1));
        holdThenRelease(reply);
        assertArrayEquals(PAYLOAD, echoed(reply.get(10, TimeUnit.SECONDS)));
        assertEquals("released=true arrived=true", seenAtStart.get(), "handed over before its data arrived");
    }

    @Test
    void aCallWhoseDataNeverArrivesIsNotAnsweredAndItsProcedureLearnsIt() throws Exception {
        CompletableFuture<MemorySegment> reply =
                handleAsync(handler(dispatcher(false)), callWithReadChunk(EARLY_ECHO, -1));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        reads.fail();
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class, () -> reply.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, e.getCause(), "the connection is lost, nothing is sent");
        assertInstanceOf(IOException.class, awaitFailure.get(), "the procedure's wait failed with it");
    }

    @Test
    void aProcedureThatFailsBeforeItsDataIsAnsweredOnlyOnceTheDataArrived() throws Exception {
        // the client may release its chunk's memory on the reply: the Reads must be over by then
        CompletableFuture<MemorySegment> reply =
                handleAsync(handler(dispatcher(true)), callWithReadChunk(EARLY_ECHO, -1));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        holdThenRelease(reply);
        XdrDecoder in = new XdrDecoder(reply.get(10, TimeUnit.SECONDS));
        assertEquals(AcceptedReply.failure(XID, OpaqueAuth.NONE, AcceptStat.SYSTEM_ERR), RpcMessageCodec.decode(in));
    }

    @Test
    void aReadChunkInsideTheCallHeaderIsWaitedForBeforeTheHeaderIsRead() throws Exception {
        // hostile placement: the chunk carries bytes 4 to 12 of the RPC header (message type, RPC version); read
        // before they landed, they would be the room's zeros: a call of RPC version 0
        CompletableFuture<MemorySegment> reply =
                handleAsync(handler(dispatcher(false)), callWithReadChunk(EARLY_ECHO, 4));
        holdThenRelease(reply);
        assertArrayEquals(PAYLOAD, echoed(reply.get(10, TimeUnit.SECONDS)));
        assertEquals("released=true arrived=true", seenAtStart.get());
        assertNull(awaitFailure.get());
    }
}
