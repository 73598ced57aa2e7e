package org.panamardma.verbs.connection.agent;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.ListenedPair;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;
import org.panamardma.verbs.connection.Received;

/**
 * A peer that speaks the agent's protocol as bytes, to send what a faulty or hostile peer would: a client without
 * an agent of its own ({@link AgentMode#OFF}: its SENDs go out exactly as given, its receives come back raw) whose
 * private data nevertheless carries the agent's trailer, so that the server's agent takes it for one of its own.
 */
final class RawAgentPeer implements AutoCloseable {
    private static final int SLOT = 64;
    private static final int SLOTS = 512;
    private final ListenedPair pair;
    final RdmaServer server;
    final RdmaConnection client;
    final RdmaConnection served;
    private final MemoryRegion out;
    private int next;

    RawAgentPeer(RdmaTestDevice device, InetSocketAddress address, ConnectionOptions serverOptions) throws Exception {
        ConnectionOptions raw = serverOptions.withAgent(AgentMode.OFF);
        raw = raw.withParameters(raw.parameters()
                .withPrivateData(
                        Handshake.append(new byte[0], serverOptions.agentDepth(), serverOptions.agentDepth())));
        ListenedPair pair =
                ListenedPair.open(address, serverOptions, raw, Duration.ofSeconds(AgentDeviceTests.WAIT_SECONDS));
        try {
            if (!pair.served().capabilities().agentActive()) {
                throw new AssertionError("the server's agent did not take the raw peer's offer");
            }
            out = pair.client().protectionDomain().allocate((long) SLOT * SLOTS, java.util.Set.of(Access.LOCAL_WRITE));
        } catch (Exception | Error e) {
            pair.close();
            throw e;
        }
        this.pair = pair;
        server = pair.server();
        client = pair.client();
        served = pair.served();
    }

    /** Sends an Atomic Request of exactly these fields (the first word whole: AOpCode and Reserved bits). */
    void sendRequest(
            int firstWord,
            long requestId,
            int stag,
            long taggedOffset,
            long addOrSwap,
            long addOrSwapMask,
            long compare,
            long compareMask)
            throws Exception {
        sendRequestNoWait(firstWord, requestId, stag, taggedOffset, addOrSwap, addOrSwapMask, compare, compareMask)
                .get(AgentDeviceTests.WAIT_SECONDS, TimeUnit.SECONDS);
    }

    // its own model of a request, word by word (any first word), not AtomicRequest: a hostile peer sends what that
    // refuses
    CompletableFuture<Void> sendRequestNoWait(
            int firstWord,
            long requestId,
            int stag,
            long taggedOffset,
            long addOrSwap,
            long addOrSwapMask,
            long compare,
            long compareMask) {
        long offset = (long) SLOT * (next++ % SLOTS);
        int n = AgentWire.encodeRawRequest(
                out.segment(),
                offset,
                firstWord,
                requestId,
                stag,
                taggedOffset,
                addOrSwap,
                addOrSwapMask,
                compare,
                compareMask);
        return client.send(out, offset, n);
    }

    /** The next message the server's agent sent, decoded. */
    AgentWire.Message next() throws Exception {
        Received r = client.receive().get(AgentDeviceTests.WAIT_SECONDS, TimeUnit.SECONDS);
        return AgentWire.decode(MemorySegment.ofArray(r.data()));
    }

    /** {@code n} receives waiting for the server's messages, in order (so that none finds no buffer). */
    List<CompletableFuture<Received>> expect(int n) {
        List<CompletableFuture<Received>> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(client.receive());
        }
        return l;
    }

    @Override
    public void close() {
        pair.close();
    }
}
