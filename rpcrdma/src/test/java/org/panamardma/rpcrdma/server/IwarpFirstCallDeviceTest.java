package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.testing.TcpHeldRdmaCmPort;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.xdr.XdrDecoder;

/**
 * Soft-iWARP's stream-start race on the server side (issue 24): {@link RpcRdmaServer} on siw1 answers the first
 * call of every fresh connection within a second, whatever the client does. The client here is what any RPC client
 * is and nothing more ({@link FirstCallClient}: bare verbs, no zero-length READ probe, no second try), and it
 * SENDs its first call, an RDMA_MSG NULL, right after ESTABLISHED: the moment siw's accept can leave it unread in
 * the server's socket ({@code ServerStreamStart} in verbs-ffm has the kernel functions and the fix).
 *
 * <p>The verdict is what the race does, which does not depend on the machine's speed: a first message left unread in
 * siw's socket is answered only when the client sends more, which this client never does, so the call is never
 * answered; the test fails if any first call is not answered within {@link #ANSWER_WITHIN} plus {@link #LATE} (30 s,
 * far beyond any starvation seen). How many were answered within a second (the issue's bound), the median and the
 * slowest are printed with, for each call answered later, where its bytes were at the one-second mark: under TCG on a
 * loaded host some calls never stuck take longer than a second (the server's socket empty at the mark), so the
 * bound is measured and reported, not asserted (1,000 connections, Debian 13 image, loaded host: before the fix 20
 * never answered; after it none, 973 within a second, the others 1.1 to 7.5 s with nothing left unread).
 *
 * <p>Connections: {@code -Dpanama.firstCall.connections} (the suite runs 100, about a minute under emulation: before
 * the fix about 2 in 100 first calls were lost, so 100 connections find a regression 87 times in 100, and with
 * {@code IwarpDemoFirstMessageDeviceTest}, which exercises the same accept path in the other image, 98 in 100).
 */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpFirstCallDeviceTest {
    static final int CONNECTIONS = Integer.getInteger("panama.firstCall.connections", 100);
    static final Duration ANSWER_WITHIN = Duration.ofSeconds(1);
    /** How long a call not answered within the second is still waited for: tells "late" from "never". */
    static final Duration LATE = Duration.ofSeconds(29);

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    @Timeout(3600)
    void everyFreshConnectionsFirstCallIsAnsweredWithinOneSecond(RdmaTestDevice device) throws Exception {
        firstCalls(device, ConnectionParameters.DEFAULTS);
    }

    /**
     * A client that answers RDMA Reads but issues none, as Linux's (xprtrdma connects with initiator depth 0): the
     * server's IRD is then 0 and only its ORD says it may probe. The server once looked at the IRD and left such a
     * client's first call unread until its retransmission, 60 s later (the kernel client reconnecting to a restarted
     * Java NFS server, stop of 2026-11-28).
     */
    @Test
    @Timeout(3600)
    void aClientThatIssuesNoReadsAsLinuxsHasItsFirstCallAnsweredToo(RdmaTestDevice device) throws Exception {
        firstCalls(device, ConnectionParameters.DEFAULTS.withResources(ConnectionParameters.DEVICE_MAXIMUM, 0));
    }

    /**
     * A client whose first local port a TCP socket holds: Soft-iWARP cannot bind its socket to it, rdma_connect fails
     * with EADDRINUSE and the client connects again with a new id ({@link
     * org.panamardma.verbs.cm.CmConnector#connectOnAFreePort}). The failed attempt's posted receive is flushed into
     * its CQ as its queue pair is destroyed; a client that kept that CQ for the next attempt took the flush for its
     * own connection's and failed (rehearsal r69: "work request 2 (QP 1) failed: IBV_WC_WR_FLUSH_ERR", a chance
     * EADDRINUSE; with the port held, every time). The client makes a new CQ per attempt, and its first call is
     * answered on the port after the held one.
     */
    @Test
    @Timeout(600)
    void aClientWhoseFirstPortATcpSocketHoldsHasItsFirstCallAnsweredOnTheNext(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = new InetSocketAddress(
                RpcRdmaServerDeviceTests.peerAddress(device), 47_000 + new Random().nextInt(2_000));
        try (RpcRdmaServer server = RpcRdmaServer.builder(EchoProgram.dispatcher())
                        .bind(address)
                        .credits(4)
                        .timeout(TIMEOUT)
                        .start();
                FirstCallClient client = new FirstCallClient(
                        TIMEOUT, ConnectionParameters.DEFAULTS.withResources(ConnectionParameters.DEVICE_MAXIMUM, 0))) {
            int xid = 0x5353_0001;
            byte[] call = RpcRdmaServerDeviceTests.concat(
                    RpcRdmaServerDeviceTests.header(new RdmaMsg(xid, 1, ChunkLists.NONE)),
                    RpcRdmaServerDeviceTests.rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.NULL, new byte[0]));
            FirstCallClient.Result r;
            int held;
            try (TcpHeldRdmaCmPort taken = new TcpHeldRdmaCmPort(() -> boundPort(address))) {
                held = taken.port();
                r = client.firstCall(address, call, ANSWER_WITHIN, LATE);
            }
            assertNull(r.connectFailure(), r.toString());
            assertTrue(
                    r.local().endsWith(":" + (held + 1)), "connected from the port after the held " + held + ": " + r);
            assertNotNull(r.reply(), r.toString());
            assertNullReply(xid, r.reply());
            assertEquals(1, server.statistics().inlineCalls(), "the server ran the call once");
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

    private static void firstCalls(RdmaTestDevice device, ConnectionParameters resources) throws Exception {
        InetSocketAddress address = new InetSocketAddress(
                RpcRdmaServerDeviceTests.peerAddress(device), 47_000 + new Random().nextInt(2_000));
        Probes probes = Probes.watch();
        List<FirstCallClient.Result> results = new ArrayList<>();
        try (RpcRdmaServer server = RpcRdmaServer.builder(EchoProgram.dispatcher())
                        .bind(address)
                        .credits(4)
                        .timeout(TIMEOUT)
                        .start();
                FirstCallClient client = new FirstCallClient(TIMEOUT, resources)) {
            for (int i = 0; i < CONNECTIONS; i++) {
                // connections closed by the client leave the server asynchronously: keep well below its maximum
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                while (server.connectionCount() > 32 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                int xid = 0x5151_0000 + i;
                byte[] call = RpcRdmaServerDeviceTests.concat(
                        RpcRdmaServerDeviceTests.header(new RdmaMsg(xid, 1, ChunkLists.NONE)),
                        RpcRdmaServerDeviceTests.rpcCall(xid, EchoProgram.PROGRAM, EchoProgram.NULL, new byte[0]));
                FirstCallClient.Result r = client.firstCall(address, call, ANSWER_WITHIN, LATE);
                results.add(r);
                if (r.reply() != null) {
                    assertNullReply(xid, r.reply());
                }
                if ((i + 1) % 100 == 0) {
                    System.out.println(summary(results, probes));
                }
            }
            List<String> failed = results.stream()
                    .filter(r -> !r.answeredWithin(ANSWER_WITHIN))
                    .map(FirstCallClient.Result::toString)
                    .toList();
            System.out.println(device + " (client READ resources: responder " + resources.responderResources()
                    + ", initiator " + resources.initiatorDepth() + "): " + summary(results, probes));
            failed.stream().limit(20).forEach(f -> System.out.println("  not answered within a second: " + f));
            // what the race does: a call never answered, its bytes waiting in the server's socket for good
            assertEquals(
                    List.of(),
                    results.stream()
                            .filter(r -> r.reply() == null)
                            .map(FirstCallClient.Result::toString)
                            .toList(),
                    "first calls never answered");
            assertEquals(CONNECTIONS, server.statistics().inlineCalls(), "the server ran every NULL call once");
        } finally {
            probes.close();
        }
    }

    /**
     * The other side of the server's probe: it must not end a connection whose client sends on. This library's client
     * probes by itself ({@code RdmaClient.connect}, whose zero-length READ may be what waits in the server's socket)
     * and then sends five calls back to back, as {@code moreCallsThanCreditsAreStillAnswered} does: a server probing
     * at once on those waiting bytes had its READ reach the client among the five calls, siw answered it with the
     * last call's length and the connection ended (rehearsal r31). The race is rare (it needs bytes left waiting,
     * about one connection in fifty, and the READ's timing), so this runs many connections; every call of every
     * connection must be answered and every connection stay up.
     */
    @Test
    @Timeout(3600)
    void aClientThatProbesAndThenSendsFiveCallsAtOnceKeepsItsConnection(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = new InetSocketAddress(
                RpcRdmaServerDeviceTests.peerAddress(device), 47_000 + new Random().nextInt(2_000));
        int connections = Math.max(1, CONNECTIONS / 2);
        Probes probes = Probes.watch();
        try (RpcRdmaServer server = RpcRdmaServer.builder(EchoProgram.dispatcher())
                .bind(address)
                .credits(8)
                .timeout(TIMEOUT)
                .start()) {
            for (int i = 0; i < connections; i++) {
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                while (server.connectionCount() > 32 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                try (RawPeer peer = RawPeer.connect(address, TIMEOUT)) {
                    List<Integer> xids = new ArrayList<>();
                    List<CompletableFuture<byte[]>> replies = new ArrayList<>();
                    for (int k = 0; k < 5; k++) {
                        int xid = 0x5252_0000 + i * 8 + k;
                        xids.add(xid);
                        replies.add(peer.call(
                                xid,
                                RpcRdmaServerDeviceTests.concat(
                                        RpcRdmaServerDeviceTests.header(new RdmaMsg(xid, 8, ChunkLists.NONE)),
                                        RpcRdmaServerDeviceTests.rpcCall(
                                                xid, EchoProgram.PROGRAM, EchoProgram.NULL, new byte[0]))));
                    }
                    for (int k = 0; k < 5; k++) {
                        byte[] reply;
                        try {
                            reply = replies.get(k).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                        } catch (ExecutionException e) {
                            throw new AssertionError(
                                    "connection " + i + ", call " + k + " failed (the server probed on "
                                            + probes.count.get() + " connections so far): " + e.getCause(),
                                    e);
                        }
                        assertNullReply(xids.get(k), reply);
                    }
                }
            }
            System.out.println(device + ": " + connections + " connections of a probing client sending five calls at "
                    + "once, every call answered; the server probed on " + probes.count.get());
            assertEquals(5L * connections, server.statistics().inlineCalls(), "the server ran every call once");
        } finally {
            probes.close();
        }
    }

    private static void assertNullReply(int xid, byte[] reply) throws Exception {
        DecodedHeader d = RpcRdmaServerDeviceTests.decode(reply);
        RdmaMsg msg = assertInstanceOf(RdmaMsg.class, d.header());
        assertEquals(xid, msg.xid());
        assertTrue(msg.credits() >= 1, "credits granted");
        XdrDecoder in = new XdrDecoder(d.rpcMessage(MemorySegment.ofArray(reply)));
        assertEquals(AcceptedReply.success(xid, OpaqueAuth.NONE), RpcMessageCodec.decode(in));
    }

    private static String summary(List<FirstCallClient.Result> results, Probes probes) {
        long[] ms = results.stream()
                .filter(r -> r.answeredWithin(ANSWER_WITHIN))
                .mapToLong(r -> r.answerNanos() / 1_000_000)
                .sorted()
                .toArray();
        long late = results.stream()
                .filter(r -> r.reply() != null && !r.answeredWithin(ANSWER_WITHIN))
                .count();
        long never = results.stream().filter(r -> r.reply() == null).count();
        return String.format(
                "%d connections: %d first calls answered within %d ms (median %d ms, max %d ms), "
                        + "%d later, %d not in %d s (connect failures among them: %d); the server found the "
                        + "first bytes left unread and probed on %d connections",
                results.size(),
                ms.length,
                ANSWER_WITHIN.toMillis(),
                ms.length == 0 ? -1 : ms[ms.length / 2],
                ms.length == 0 ? -1 : ms[ms.length - 1],
                late,
                never,
                LATE.plus(ANSWER_WITHIN).toSeconds(),
                results.stream().filter(r -> r.connectFailure() != null).count(),
                probes.count.get());
    }

    /**
     * Counts the server's "left unread ... probing" lines (ServerStreamStart, DEBUG through SLF4J's
     * java.util.logging binding): how often the fix had something to do.
     */
    static final class Probes extends Handler implements AutoCloseable {
        static final String LOGGER = "org.panamardma.verbs.connection.ServerStreamStart";
        final AtomicInteger count = new AtomicInteger();
        private final Logger logger = Logger.getLogger(LOGGER);
        private final Level before = logger.getLevel();

        static Probes watch() {
            Probes p = new Probes();
            p.logger.setLevel(Level.FINE);
            p.setLevel(Level.FINE);
            p.logger.addHandler(p);
            return p;
        }

        @Override
        public void publish(LogRecord r) {
            String m = r.getMessage();
            if (m != null && m.contains("left unread")) {
                count.incrementAndGet();
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {
            logger.removeHandler(this);
            logger.setLevel(before);
        }
    }
}
