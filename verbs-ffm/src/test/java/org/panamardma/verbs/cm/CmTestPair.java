package org.panamardma.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.NativeResource;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.TestAccess;
import org.panamardma.verbs.WcOpcode;
import org.panamardma.verbs.WorkCompletions;

/**
 * A client and a server connected through rdma_cm across the testbed wire: the server listens on the peer device's
 * address, the client (on the test device) connects to it. Each side has its own event channel, and a PD, CQ and a
 * 64 KiB memory region on the device context rdma_cm picked for it.
 */
final class CmTestPair implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    static final long POLL_TIMEOUT_MILLIS = 20_000;
    /** A fresh port per connection (siw may refuse a port just closed); random base so reruns do not collide. */
    private static final AtomicInteger PORTS = new AtomicInteger(20_000 + new Random().nextInt(20_000));

    static int nextPort() {
        return PORTS.getAndIncrement();
    }

    /** The peer device's IPv4 (or IPv6) address, on a fresh port: where the server listens. */
    static InetSocketAddress serverAddress(RdmaTestDevice device, boolean ipv6) {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer device"));
        InetAddress ip = (ipv6 ? peer.ipv6() : peer.ipv4())
                .orElseThrow(() -> new AssertionError(peer + " has no " + (ipv6 ? "IPv6" : "IPv4") + " address"));
        return new InetSocketAddress(ip, nextPort());
    }

    /** One side's verbs objects, made on the context of its id when rdma_cm asks for the queue pair. */
    static final class Side implements CmConnector.QueuePairFactory {
        final Set<Access> access;
        final UnaryOperator<QueuePairOptions> customize;
        ProtectionDomain pd;
        CompletionQueue cq;
        MemoryRegion mr;
        QueuePair qp;

        Side(Set<Access> access, UnaryOperator<QueuePairOptions> customize) {
            this.access = access;
            this.customize = customize;
        }

        @Override
        public QueuePair create(CmId id) throws RdmaException {
            if (pd == null) { // a client's second attempt (a new local port: connectOnAFreePort) reuses them
                var ctx = id.context();
                pd = ctx.allocateProtectionDomain();
                cq = ctx.createCompletionQueue(64);
                mr = pd.allocate(64 * 1024, access);
            }
            qp = id.createQueuePair(pd, customize.apply(QueuePairOptions.of(cq)));
            return qp;
        }

        void close() {
            for (NativeResource r : new NativeResource[] {mr, pd, cq}) {
                if (r != null) {
                    r.close();
                }
            }
        }
    }

    final EventChannel clientChannel;
    final EventChannel serverChannel;
    final Side client;
    final Side server;
    CmId listener;
    CmConnector.Connection clientConnection;
    CmConnector.Connection serverConnection;
    final WorkCompletions wc = WorkCompletions.allocate(8);

    CmTestPair(Set<Access> clientAccess, Set<Access> serverAccess, UnaryOperator<QueuePairOptions> customize)
            throws RdmaException {
        this(clientAccess, serverAccess, customize, false);
    }

    /** With {@code oneChannel}, client and server share one event channel, each side waiting from its own thread. */
    CmTestPair(
            Set<Access> clientAccess,
            Set<Access> serverAccess,
            UnaryOperator<QueuePairOptions> customize,
            boolean oneChannel)
            throws RdmaException {
        clientChannel = EventChannel.create();
        serverChannel = oneChannel ? clientChannel : EventChannel.create();
        client = new Side(clientAccess, customize);
        server = new Side(serverAccess, customize);
    }

    CmTestPair() throws RdmaException {
        this(TestAccess.ALL_REMOTE, TestAccess.ALL_REMOTE, o -> o);
    }

    void listen(InetSocketAddress address) throws RdmaException {
        listener = CmConnector.listen(serverChannel, address, 4);
    }

    /** Listens on {@code address} and connects to it, with the given private data each way. */
    void connect(InetSocketAddress address, byte[] clientData, byte[] serverData) throws Exception {
        listen(address);
        CompletableFuture<CmConnector.Connection> accepted = CompletableFuture.supplyAsync(() -> {
            try {
                return CmConnector.acceptOne(
                        listener, ConnectionParameters.DEFAULTS.withPrivateData(serverData), server, TIMEOUT);
            } catch (RdmaException e) {
                throw new RuntimeException(e);
            }
        });
        try {
            clientConnection = CmConnector.connectOnAFreePort(
                    clientChannel, address, ConnectionParameters.DEFAULTS.withPrivateData(clientData), client, TIMEOUT);
        } catch (Exception clientFailure) {
            // the server side's view of the failure: it failed first (that made the client's failure), or it is
            // still waiting for a request, which closing the listener ends
            try {
                accepted.get(3, TimeUnit.SECONDS);
            } catch (TimeoutException stillWaiting) {
                listener.close();
            } catch (ExecutionException ignored) {
                // reported below
            }
            try {
                accepted.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException serverFailure) {
                Throwable cause = serverFailure.getCause();
                clientFailure.addSuppressed(
                        cause instanceof RuntimeException r && r.getCause() != null
                                ? r.getCause()
                                : cause != null ? cause : serverFailure);
            }
            throw clientFailure;
        }
        try {
            serverConnection = accepted.get(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            fail("server side did not finish accepting: " + e);
        }
    }

    /**
     * Disconnects from {@code initiator}: the peer gets DISCONNECTED and disconnects too (as applications do: on
     * InfiniBand/RoCE that sends the DREP the initiator's own DISCONNECTED waits for), then the initiator gets
     * DISCONNECTED. Returns both events, for the log.
     */
    static String disconnectBoth(CmId initiator, CmId peer) throws RdmaException {
        initiator.disconnect();
        CmEvent atPeer = peer.expect(CmEventType.DISCONNECTED, TIMEOUT);
        String peerDisconnect = "ok";
        try {
            peer.disconnect();
        } catch (RdmaException e) {
            peerDisconnect = e.getMessage();
        }
        CmEvent atInitiator = initiator.expect(CmEventType.DISCONNECTED, TIMEOUT);
        return "peer " + atPeer + " (its disconnect: " + peerDisconnect + "); initiator " + atInitiator;
    }

    /** Polls {@code cq} until one completion arrives and asserts it succeeded with {@code wrId} and {@code opcode}. */
    void expectSuccess(CompletionQueue cq, long wrId, WcOpcode opcode) throws RdmaException {
        long deadline = System.currentTimeMillis() + POLL_TIMEOUT_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            int n = cq.poll(wc);
            if (n == 1) {
                wc.check(0);
                assertEquals(wrId, wc.wrId(0), "wr_id");
                assertEquals(opcode, wc.opcode(0), "opcode");
                return;
            }
            if (n > 1) {
                fail("expected one completion, got " + n);
            }
            Thread.onSpinWait();
        }
        fail("no completion on " + cq + " within " + POLL_TIMEOUT_MILLIS + " ms");
    }

    @Override
    public void close() {
        List<Runnable> steps = new ArrayList<>();
        // ids (with their QPs) go with their channels; then the verbs objects on librdmacm's contexts
        steps.add(clientChannel::close);
        steps.add(serverChannel::close);
        steps.add(client::close);
        steps.add(server::close);
        steps.add(wc::close);
        RuntimeException first = null;
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
