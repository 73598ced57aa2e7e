package org.panamardma.rpcrdma.server;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.panamardma.rpcrdma.ConnectPrivateData;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.Received;

/**
 * A hand-driven RPC-over-RDMA requester for device tests: connects through rdma_cm with RFC 8797 private data, Sends
 * whatever bytes a test built (good calls and bad headers alike), registers memory for chunks, and matches received
 * messages to the XIDs they carry in their first word.
 */
final class RawPeer implements AutoCloseable {
    static final int INLINE = 4096;
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int SEND_SLOTS = 64;

    final RdmaConnection rdma;
    private final MemoryRegion sendBuffers;
    private final BlockingQueue<Integer> freeSlots = new ArrayBlockingQueue<>(SEND_SLOTS);
    private final Map<Integer, CompletableFuture<byte[]>> waiting = new ConcurrentHashMap<>();
    /** Messages that arrived for no waiting XID. */
    final BlockingQueue<byte[]> unmatched = new LinkedBlockingQueue<>();

    private final List<MemoryRegion> regions = new ArrayList<>();

    private RawPeer(RdmaConnection rdma) throws Exception {
        this.rdma = rdma;
        this.sendBuffers =
                rdma.protectionDomain().allocate((long) SEND_SLOTS * INLINE, java.util.Set.of(Access.LOCAL_WRITE));
        for (int i = 0; i < SEND_SLOTS; i++) {
            freeSlots.add(i);
        }
        Thread.ofVirtual().name("raw-peer " + rdma.name()).start(this::readLoop);
    }

    static RawPeer connect(InetSocketAddress server, Duration timeout) throws Exception {
        return connect(server, timeout, ConnectionParameters.DEFAULTS);
    }

    /** Connects with {@code parameters} (RDMA Read resources, retries) and RFC 8797 private data. */
    static RawPeer connect(InetSocketAddress server, Duration timeout, ConnectionParameters parameters)
            throws Exception {
        byte[] ours = ConnectPrivateData.of(INLINE, INLINE, false).encode();
        ConnectionOptions options = new ConnectionOptions(64, 64, INLINE, parameters.withPrivateData(ours), timeout);
        return new RawPeer(RdmaClient.connect(server, options));
    }

    private void readLoop() {
        while (true) {
            Received r;
            try {
                r = rdma.receive().get();
            } catch (Exception e) {
                waiting.values().forEach(f -> f.completeExceptionally(e));
                return;
            }
            byte[] data = r.data();
            CompletableFuture<byte[]> f = data.length >= 4 ? waiting.remove(xid(data)) : null;
            if (f != null) {
                f.complete(data);
            } else {
                unmatched.add(data);
            }
        }
    }

    static int xid(byte[] message) {
        return MemorySegment.ofArray(message).get(BE_INT, 0);
    }

    /** Sends {@code message} and returns the future of the message that comes back with XID {@code xid}. */
    CompletableFuture<byte[]> call(int xid, byte[] message) throws Exception {
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        waiting.put(xid, f);
        send(message);
        return f;
    }

    /** Sends {@code message} expecting nothing. */
    void send(byte[] message) throws Exception {
        if (message.length > INLINE) {
            throw new IllegalArgumentException("message of " + message.length + " bytes");
        }
        Integer slot = freeSlots.poll(60, TimeUnit.SECONDS);
        try {
            long offset = (long) slot * INLINE;
            MemorySegment.copy(message, 0, sendBuffers.segment(), JAVA_BYTE, offset, message.length);
            rdma.send(sendBuffers, offset, message.length).get(60, TimeUnit.SECONDS);
        } finally {
            freeSlots.add(slot);
        }
    }

    /** Registers a copy of {@code bytes} for the server's RDMA Read and Write. */
    synchronized RdmaSegment register(byte[] bytes) throws Exception {
        MemoryRegion mr = rdma.protectionDomain()
                .allocate(
                        Math.max(bytes.length, 8),
                        java.util.Set.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        MemorySegment.copy(bytes, 0, mr.segment(), JAVA_BYTE, 0, bytes.length);
        regions.add(mr);
        return new RdmaSegment(mr.rkey(), bytes.length, mr.address());
    }

    RdmaSegment registerEmpty(int length) throws Exception {
        return register(new byte[length]);
    }

    /** The first {@code length} bytes of the region behind {@code segment}. */
    synchronized byte[] contents(RdmaSegment segment, int length) {
        for (MemoryRegion mr : regions) {
            if (mr.rkey() == segment.handle()) {
                return mr.segment()
                        .asSlice(segment.offset() - mr.address(), length)
                        .toArray(JAVA_BYTE);
            }
        }
        throw new IllegalArgumentException("no region " + segment);
    }

    /** Deregisters every region registered so far (between tests of one connection). */
    synchronized void releaseRegions() {
        regions.forEach(MemoryRegion::close);
        regions.clear();
    }

    @Override
    public void close() {
        synchronized (this) {
            releaseRegions();
        }
        sendBuffers.close();
        rdma.close();
    }
}
