package org.panamardma.rpcrdma.server;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import org.panamardma.rpcrdma.ConnectPrivateData;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.cm.QueuePairOptions;

/**
 * An RPC-over-RDMA client on the bare verbs API that does exactly what a minimal client does to make its first call,
 * and nothing more: a receive buffer posted before connecting, rdma_connect with RFC 8797 private data and READ
 * resources for the server (as Linux's client grants), and, right after ESTABLISHED, the call SENT. No zero-length
 * READ probe (RdmaClient's), no second connect after one that reached the server: what a server gets from clients it
 * did not write. A connect whose local port Soft-iWARP could not bind (EADDRINUSE from rdma_connect itself, held by
 * one of the guest's TCP sockets: rehearsal r55) never reached the server, and is tried again with a new port as
 * every client of this project does ({@link CmConnector#connectOnAFreePort}), with a new CQ.
 */
final class FirstCallClient implements AutoCloseable {
    static final int BUFFER = 4096;
    private static final long SEND_ID = 1;
    private static final long RECEIVE_ID = 2;

    /**
     * One connection's first call: its reply (null if none came), the nanoseconds from ESTABLISHED to the reply,
     * the connect's failure (null if it connected), and where the bytes were when the call had waited its time
     * ({@link #socketQueues}; null if it was answered in time).
     */
    record Result(int index, byte[] reply, long answerNanos, String connectFailure, String local, String sockets) {
        boolean answeredWithin(Duration limit) {
            return reply != null && answerNanos <= limit.toNanos();
        }

        @Override
        public String toString() {
            return "connection " + index + (local == null ? "" : " from " + local) + ": "
                    + (connectFailure != null
                            ? "connect failed: " + connectFailure
                            : reply == null ? "no reply" : "reply after " + answerNanos / 1_000_000 + " ms")
                    + (sockets == null ? "" : " (after the wait: " + sockets + ")");
        }
    }

    private final EventChannel channel;
    private final Duration timeout;
    private final WorkCompletions wc = WorkCompletions.allocate(4);
    private final ConnectionParameters parameters;
    private int connections;

    FirstCallClient(Duration timeout) throws RdmaException {
        this(timeout, ConnectionParameters.DEFAULTS);
    }

    /** @param resources the READ resources to connect with (their private data is replaced by RFC 8797's) */
    FirstCallClient(Duration timeout, ConnectionParameters resources) throws RdmaException {
        this.timeout = timeout;
        this.parameters = resources.withPrivateData(
                ConnectPrivateData.of(BUFFER, BUFFER, false).encode());
        this.channel = EventChannel.create();
    }

    /**
     * Connects to {@code server}, SENDs {@code call} right after ESTABLISHED and waits for the reply: up to
     * {@code within}, then up to {@code late} more (so that a late reply is told from none); then disconnects.
     */
    Result firstCall(InetSocketAddress server, byte[] call, Duration within, Duration late) throws RdmaException {
        int index = connections++;
        ProtectionDomain[] pd = new ProtectionDomain[1];
        CompletionQueue[] cq = new CompletionQueue[1];
        MemoryRegion[] mr = new MemoryRegion[1];
        try {
            CmConnector.Connection c;
            try {
                c = CmConnector.connectOnAFreePort(
                        channel,
                        server,
                        parameters,
                        id -> {
                            if (pd[0] == null) { // a second attempt (a new local port) reuses them
                                pd[0] = id.context().allocateProtectionDomain();
                                mr[0] = pd[0].allocate(2L * BUFFER, Set.of(Access.LOCAL_WRITE));
                            }
                            // but not the CQ: a failed attempt's receive is flushed into it as its queue pair goes
                            // (CmConnector.connectOnAFreePort); kept, its flush was taken for this connection's
                            // (rehearsal r69: "work request 2 (QP 1) failed: IBV_WC_WR_FLUSH_ERR")
                            if (cq[0] != null) {
                                cq[0].close();
                            }
                            cq[0] = id.context().createCompletionQueue(8);
                            QueuePair qp = id.createQueuePair(pd[0], QueuePairOptions.of(cq[0]));
                            qp.postReceive(RECEIVE_ID, mr[0], BUFFER, BUFFER);
                            return qp;
                        },
                        timeout);
            } catch (RdmaException e) {
                return new Result(index, null, 0, e.getMessage(), null, null);
            }
            try (c) {
                long established = System.nanoTime();
                MemorySegment.copy(call, 0, mr[0].segment(), JAVA_BYTE, 0, call.length);
                c.queuePair().postSend(SEND_ID, mr[0], 0, call.length, SendFlags.SIGNALED);
                long deadline = established + within.toNanos() + late.toNanos();
                String sockets = null;
                while (System.nanoTime() - deadline < 0) {
                    if (sockets == null && System.nanoTime() - established > within.toNanos()) {
                        sockets = socketQueues(c);
                    }
                    int n = cq[0].poll(wc);
                    for (int i = 0; i < n; i++) {
                        wc.check(i);
                        if (wc.wrId(i) == RECEIVE_ID) {
                            long took = System.nanoTime() - established;
                            byte[] reply = mr[0].segment()
                                    .asSlice(BUFFER, wc.byteLength(i))
                                    .toArray(JAVA_BYTE);
                            return new Result(index, reply, took, null, local(c), sockets);
                        }
                    }
                    if (n == 0) {
                        Thread.sleep(1);
                    }
                }
                return new Result(index, null, 0, null, local(c), sockets);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RdmaException("interrupted", org.panamardma.verbs.Errno.EINTR);
            }
        } finally {
            for (AutoCloseable r : new AutoCloseable[] {mr[0], cq[0], pd[0]}) {
                if (r != null) {
                    try {
                        r.close();
                    } catch (Exception ignored) {
                        // gone with the connection
                    }
                }
            }
        }
    }

    private static String local(CmConnector.Connection c) {
        return c.id().localAddress()
                .map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
                .orElse("?");
    }

    /**
     * Where a call that is not answered is waiting, for the test's report: the unread bytes (rx_queue) of both
     * ends' TCP sockets of the connection, as /proc/net/tcp shows them (siw's sockets are the kernel's own, listed
     * there like any other; client and server run in the same VM).
     */
    static String socketQueues(CmConnector.Connection c) {
        try {
            InetSocketAddress local = c.id().localAddress().orElseThrow();
            InetSocketAddress peer = c.id().peerAddress().orElseThrow();
            String l = entry(local);
            String p = entry(peer);
            StringBuilder s = new StringBuilder();
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/net/tcp"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 4 && (f[1].equals(l) && f[2].equals(p) || f[1].equals(p) && f[2].equals(l))) {
                    s.append(f[1].equals(l) ? "client" : "server")
                            .append(" socket unread ")
                            .append(Long.parseLong(f[4].substring(f[4].indexOf(':') + 1), 16))
                            .append(" B, state ")
                            .append(f[3])
                            .append("; ");
                }
            }
            return s.isEmpty() ? "no socket of the connection in /proc/net/tcp" : s.toString();
        } catch (Exception e) {
            return "sockets unknown: " + e;
        }
    }

    /** An IPv4 socket address as /proc/net/tcp prints it (address word in little-endian order, as on x86_64). */
    private static String entry(InetSocketAddress a) {
        byte[] b = a.getAddress().getAddress();
        return String.format("%02X%02X%02X%02X:%04X", b[3] & 0xff, b[2] & 0xff, b[1] & 0xff, b[0] & 0xff, a.getPort());
    }

    @Override
    public void close() {
        wc.close();
        channel.close();
    }
}
