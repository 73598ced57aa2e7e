package org.panamardma.oncrpc4j;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.panamardma.rpcrdma.ConnectPrivateData;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.Received;

/**
 * An RPC-over-RDMA requester driven by hand, for device tests: connects with RFC 8797 private data and Sends whatever
 * bytes a test built, bad headers included; every message that comes back is queued in arrival order.
 */
final class RawRequester implements AutoCloseable {
    static final int INLINE = 4096;

    private final RdmaConnection rdma;
    private final MemoryRegion send;
    final BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();

    private RawRequester(RdmaConnection rdma) throws Exception {
        this.rdma = rdma;
        this.send = rdma.protectionDomain().allocate(INLINE, Set.of(Access.LOCAL_WRITE));
        Thread.ofVirtual().name("raw-requester " + rdma.name()).start(() -> {
            while (true) {
                Received r;
                try {
                    r = rdma.receive().get();
                } catch (Exception e) {
                    return;
                }
                received.add(r.data());
            }
        });
    }

    static RawRequester connect(InetSocketAddress server, Duration timeout) throws Exception {
        byte[] ours = ConnectPrivateData.of(INLINE, INLINE, false).encode();
        ConnectionOptions options =
                new ConnectionOptions(16, 16, INLINE, ConnectionParameters.DEFAULTS.withPrivateData(ours), timeout);
        return new RawRequester(RdmaClient.connect(server, options));
    }

    /** Sends {@code message} (one at a time: one send buffer). */
    synchronized void send(byte[] message) throws Exception {
        MemorySegment.copy(message, 0, send.segment(), JAVA_BYTE, 0, message.length);
        rdma.send(send, 0, message.length).get(60, TimeUnit.SECONDS);
    }

    /** The messages received until (and with) the first whose XID is {@code xid}. */
    List<byte[]> until(int xid, Duration timeout) throws InterruptedException {
        List<byte[]> got = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            byte[] m = received.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (m == null) {
                throw new AssertionError("no message with XID " + Integer.toHexString(xid) + " in " + timeout
                        + "; before it: " + got.size());
            }
            got.add(m);
            if (m.length >= 4 && MemorySegment.ofArray(m).get(ValueLayouts.BE_INT, 0) == xid) {
                return got;
            }
        }
    }

    /** The next message received within {@code timeout}, or null. */
    byte[] next(Duration timeout) throws InterruptedException {
        return received.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        send.close();
        rdma.close();
    }

    private static final class ValueLayouts {
        static final java.lang.foreign.ValueLayout.OfInt BE_INT =
                java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    }
}
