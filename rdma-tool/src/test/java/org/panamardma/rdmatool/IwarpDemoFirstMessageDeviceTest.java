package org.panamardma.rdmatool;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.cm.QueuePairOptions;
import org.panamardma.verbs.connection.ConnectionOptions;

/**
 * The demo's server on Soft-iWARP (siw1) answers the first message of every fresh connection within a second
 * (issue 24: the demo failed in 3 of 12 runs in its Soft-iWARP act): a client on the bare verbs API that does no
 * zero-length READ probe and no second connect SENDs its question right after ESTABLISHED and must get the
 * server's memory description back. {@code -Dpanama.firstCall.connections} connections (100 by default, about half
 * a minute under emulation).
 *
 * <p>As in {@code IwarpFirstCallDeviceTest}: a question left unread by siw is never answered (this client sends
 * nothing more), so the test fails on a question not answered within 30 s or a failed connect; how many were
 * answered within a second is printed, not asserted, since under TCG on a loaded host some answers to questions that
 * never stuck take longer (1,000 connections, Debian 13 image, loaded host: none lost, 990 within a second, the other
 * 10 within 1.9 s).
 */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpDemoFirstMessageDeviceTest {
    static final int CONNECTIONS = Integer.getInteger("panama.firstCall.connections", 100);
    static final Duration ANSWER_WITHIN = Duration.ofSeconds(1);
    static final Duration LATE = Duration.ofSeconds(29);
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final long SEND_ID = 1;
    private static final long RECEIVE_ID = 2;

    @Test
    @Timeout(3600)
    void everyFreshConnectionsQuestionIsAnsweredWithinOneSecond(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = ToolDeviceTests.serverAddress(device);
        List<String> failed = new ArrayList<>();
        List<Long> answerMillis = new ArrayList<>();
        try (DemoServer server = new DemoServer(address, ConnectionOptions.DEFAULTS.withTimeout(TIMEOUT));
                EventChannel channel = EventChannel.create();
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            for (int i = 0; i < CONNECTIONS; i++) {
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                while (server.server.connectionCount() > 32 && System.nanoTime() < deadline) {
                    Thread.sleep(5); // connections the client closed leave the server asynchronously
                }
                String outcome = ask(channel, address, wc, server.memory.address(), answerMillis);
                if (outcome != null) {
                    failed.add("connection " + i + ": " + outcome);
                }
                if ((i + 1) % 100 == 0) {
                    System.out.printf(
                            "%d connections: %d questions not answered within %d ms%n",
                            i + 1, failed.size(), ANSWER_WITHIN.toMillis());
                }
            }
            long[] ms =
                    answerMillis.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf(
                    "%s: %d connections to the demo's server: %d questions answered within %d ms (median "
                            + "%d ms, max %d ms), %d not%n",
                    device,
                    CONNECTIONS,
                    CONNECTIONS - failed.size(),
                    ANSWER_WITHIN.toMillis(),
                    ms.length == 0 ? -1 : ms[ms.length / 2],
                    ms.length == 0 ? -1 : ms[ms.length - 1],
                    failed.size());
            failed.stream().limit(20).forEach(f -> System.out.println("  " + f));
            // what the race does: a question never answered (its bytes wait in the server's socket for good), a
            // connect failed
            assertEquals(
                    List.of(),
                    failed.stream().filter(f -> !f.contains("answered after")).toList(),
                    "questions never answered, connects failed");
        }
    }

    /** One fresh connection: the question SENT right after ESTABLISHED; null when answered in time, else why not. */
    // like rpcrdma's FirstCallClient on purpose: that is an RPC-over-RDMA client, this the demo's; no shared test tree

    private static String ask(
            EventChannel channel, InetSocketAddress address, WorkCompletions wc, long memory, List<Long> answerMillis)
            throws Exception {
        ProtectionDomain[] pd = new ProtectionDomain[1];
        CompletionQueue[] cq = new CompletionQueue[1];
        MemoryRegion[] mr = new MemoryRegion[1];
        try {
            CmConnector.Connection c;
            try {
                c = CmConnector.connectOnAFreePort(
                        channel,
                        address,
                        ConnectionParameters.DEFAULTS,
                        id -> {
                            if (pd[0] == null) { // a second attempt (a new local port) reuses them
                                pd[0] = id.context().allocateProtectionDomain();
                                mr[0] = pd[0].allocate(4096, Set.of(Access.LOCAL_WRITE));
                            }
                            // not the CQ: the failed attempt's receive was flushed into it (connectOnAFreePort)
                            if (cq[0] != null) {
                                cq[0].close();
                            }
                            cq[0] = id.context().createCompletionQueue(8);
                            QueuePair qp = id.createQueuePair(pd[0], QueuePairOptions.of(cq[0]));
                            qp.postReceive(RECEIVE_ID, mr[0], 0, 64);
                            return qp;
                        },
                        TIMEOUT);
            } catch (Exception e) {
                return "connect failed: " + e.getMessage();
            }
            try (c) {
                long established = System.nanoTime();
                MemorySegment.copy(RemoteMemory.ASK, 0, mr[0].segment(), JAVA_BYTE, 1024, RemoteMemory.ASK.length);
                c.queuePair().postSend(SEND_ID, mr[0], 1024, RemoteMemory.ASK.length, SendFlags.SIGNALED);
                long until = established + ANSWER_WITHIN.toNanos() + LATE.toNanos();
                while (System.nanoTime() - until < 0) {
                    int n = cq[0].poll(wc);
                    for (int i = 0; i < n; i++) {
                        wc.check(i);
                        if (wc.wrId(i) == RECEIVE_ID) {
                            long took = System.nanoTime() - established;
                            RemoteMemory r = RemoteMemory.of(
                                    mr[0].segment().asSlice(0, 16).toArray(JAVA_BYTE));
                            if (r.address() != memory) {
                                return "the answer names address " + r.address() + ", not the server's " + memory;
                            }
                            if (took > ANSWER_WITHIN.toNanos()) {
                                return "answered after " + took / 1_000_000 + " ms";
                            }
                            answerMillis.add(took / 1_000_000);
                            return null;
                        }
                    }
                    if (n == 0) {
                        Thread.sleep(1);
                    }
                }
                return "no answer in " + ANSWER_WITHIN.plus(LATE).toSeconds() + " s";
            }
        } finally {
            for (AutoCloseable r : new AutoCloseable[] {mr[0], cq[0], pd[0]}) {
                if (r != null) {
                    r.close();
                }
            }
        }
    }
}
