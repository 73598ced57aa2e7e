package org.panamardma.verbs.connection.agent;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testing.KernelLogOnFailure;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.TestAccess;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.connection.ConnectionCapabilities;
import org.panamardma.verbs.connection.ConnectionClosedException;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;
import org.panamardma.verbs.connection.Received;
import org.panamardma.verbs.extensions.MaskedAtomics;

/**
 * The RFC 7306 agent on a real device, subclassed per transport: on siw (which has neither atomics nor immediate
 * data) the agent provides them; on rxe it is forced ({@link AgentMode#ALWAYS}) beside the device's own. Every test
 * checks the far side's memory or the bytes received, not only what the requester was told.
 */
@ExtendWith(KernelLogOnFailure.class)
abstract class AgentDeviceTests {
    static final long WAIT_SECONDS = 90;
    static final int DEPTH = 4;
    /** Messages a test keeps in flight towards the server: half its receive buffers (16 by default). */
    static final int IN_FLIGHT = 8;

    static final ConnectionOptions BASE = ConnectionOptions.DEFAULTS.withTimeout(Duration.ofSeconds(90));
    private static final AtomicInteger PORTS = new AtomicInteger(20_000 + new Random().nextInt(20_000));

    /** The agent mode of both ends in this transport's tests. */
    abstract AgentMode mode();

    ConnectionOptions options() {
        return BASE.withAgent(mode(), DEPTH);
    }

    static InetSocketAddress serverAddress(RdmaTestDevice device) {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer device"));
        InetAddress ip = peer.ipv4().orElseThrow(() -> new AssertionError(peer + " has no IPv4 address"));
        return new InetSocketAddress(ip, PORTS.getAndIncrement());
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    static Throwable failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_SECONDS, TimeUnit.SECONDS));
        return e.getCause();
    }

    /** A server with the given options and {@code clients} clients connected to it, with the server's sides. */
    static final class Setup implements AutoCloseable {
        final RdmaServer server;
        final List<RdmaConnection> clients = new ArrayList<>();
        final List<RdmaConnection> served = new ArrayList<>();

        Setup(RdmaTestDevice device, ConnectionOptions serverOptions, ConnectionOptions clientOptions, int clients)
                throws Exception {
            InetSocketAddress address = serverAddress(device);
            server = RdmaServer.listen(address, serverOptions);
            try {
                for (int i = 0; i < clients; i++) {
                    this.clients.add(RdmaClient.connect(address, clientOptions));
                    RdmaConnection s = server.accept(Duration.ofSeconds(WAIT_SECONDS));
                    assertNotNull(s, "the server accepted no connection");
                    served.add(s);
                }
            } catch (Exception | Error e) {
                close();
                throw e;
            }
        }

        RdmaConnection client() {
            return clients.get(0);
        }

        RdmaConnection serverSide() {
            return served.get(0);
        }

        @Override
        public void close() {
            for (RdmaConnection c : clients) {
                c.close();
            }
            server.close();
        }
    }

    Setup pair(RdmaTestDevice device) throws Exception {
        return new Setup(device, options(), options(), 1);
    }

    static MemoryRegion atomicRegion(RdmaConnection c, long size) throws Exception {
        return c.protectionDomain().allocate(size, TestAccess.ALL_REMOTE);
    }

    // ------------------------------------------------------------------------------------------- atomics

    @Test
    void fourClientsTimesTwentyFiveFetchAddMakeOneHundredWithDistinctReturns(RdmaTestDevice device) throws Exception {
        try (Setup s = new Setup(device, options(), options(), 4)) {
            for (RdmaConnection c : s.clients) {
                assertEquals(
                        ConnectionCapabilities.Provider.AGENT,
                        c.capabilities().atomics(),
                        c.capabilities().toString());
            }
            System.out.println("client: " + s.client().capabilities());
            // one counter in the server's memory, registered in each connection's protection domain
            try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
                MemorySegment counter = arena.allocate(8, 8);
                List<MemoryRegion> regions = new ArrayList<>();
                for (RdmaConnection served : s.served) {
                    regions.add(served.protectionDomain().register(counter, TestAccess.ALL_REMOTE));
                }
                List<CompletableFuture<Long>> olds = new ArrayList<>();
                for (int k = 0; k < 25; k++) {
                    for (int c = 0; c < 4; c++) {
                        olds.add(s.clients
                                .get(c)
                                .fetchAdd(counter.address(), regions.get(c).rkey(), 1));
                    }
                }
                BitSet seen = new BitSet();
                for (CompletableFuture<Long> f : olds) {
                    long v = await(f);
                    assertTrue(v >= 0 && v < 100 && !seen.get((int) v), "returned " + v + " twice or out of range");
                    seen.set((int) v);
                }
                assertEquals(100, counter.get(JAVA_LONG, 0), "4 clients x 25 FetchAdd");
                assertEquals(100, seen.cardinality());
                long executed = 0;
                for (RdmaConnection served : s.served) {
                    executed += served.agentStatistics().orElseThrow().requestsExecuted();
                    assertTrue(served.agentStatistics().orElseThrow().unansweredHighWater() <= 2 * DEPTH);
                }
                for (RdmaConnection c : s.clients) {
                    assertTrue(
                            c.agentStatistics().orElseThrow().outstandingHighWater() <= DEPTH,
                            c.agentStatistics().toString());
                }
                assertEquals(100, executed, "each request executed once, by the server's agents");
                regions.forEach(MemoryRegion::close);
            }
        }
    }

    @Test
    void compareSwapSwapsWhenEqualAndLeavesTheWordWhenNot(RdmaTestDevice device) throws Exception {
        try (Setup s = pair(device)) {
            MemoryRegion word = atomicRegion(s.serverSide(), 64);
            word.segment().set(JAVA_LONG, 16, 7);
            assertEquals(7L, await(s.client().compareSwap(word.address() + 16, word.rkey(), 7, 1000)));
            assertEquals(1000, word.segment().get(JAVA_LONG, 16), "swapped");
            assertEquals(1000L, await(s.client().compareSwap(word.address() + 16, word.rkey(), 7, 2000)));
            assertEquals(1000, word.segment().get(JAVA_LONG, 16), "compare failed: unchanged");
            assertEquals(0, word.segment().get(JAVA_LONG, 8), "the neighbours untouched");
            assertEquals(0, word.segment().get(JAVA_LONG, 24), "the neighbours untouched");
        }
    }

    /** The synchronous {@link MaskedAtomics} over the connection's RemoteWord: its CmpSwap loops, by the agent. */
    @Test
    void maskedAtomicsRunOverTheConnectionsRemoteWord(RdmaTestDevice device) throws Exception {
        try (Setup s = pair(device)) {
            MemoryRegion word = atomicRegion(s.serverSide(), 8);
            word.segment().set(JAVA_LONG, 0, 0x00000001_ffffffffL);
            var remote = s.client().remoteWord(word.remote());
            // two 32-bit fields: the low one wraps without carrying into the high one
            assertEquals(
                    0x00000001_ffffffffL, MaskedAtomics.fetchAdd(remote, 0x00000001_00000001L, 0x80000000_80000000L));
            assertEquals(0x00000002_00000000L, word.segment().get(JAVA_LONG, 0));
        }
    }

    /**
     * A WRITE and then an atomic on the same word, 200 pairs in flight at once, one word each: every atomic sees its
     * WRITE. (One word for all would not do: a WRITE posted after an atomic may be placed before the atomic
     * executes, RFC 7306 section 7, "Atomic | RDMA Write".)
     */
    @Test
    void aWriteThenAnAtomicOnTheSameConnectionSeesTheWrite(RdmaTestDevice device) throws Exception {
        int n = 200;
        try (Setup s = pair(device)) {
            MemoryRegion words = atomicRegion(s.serverSide(), 8L * n);
            MemoryRegion source = s.client().protectionDomain().allocate(8L * n, Set.of(Access.LOCAL_WRITE));
            List<CompletableFuture<Long>> seen = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                source.segment().set(JAVA_LONG, 8L * i, 1_000_000L * (i + 1));
                var _ = s.client().write(source, 8L * i, 8, words.address() + 8L * i, words.rkey()); // not waited for
                seen.add(s.client().fetchAdd(words.address() + 8L * i, words.rkey(), 1));
            }
            for (int i = 0; i < n; i++) {
                assertEquals(1_000_000L * (i + 1), await(seen.get(i)), "FetchAdd " + i + " saw the WRITE before it");
                assertEquals(1_000_000L * (i + 1) + 1, words.segment().get(JAVA_LONG, 8L * i));
            }
        }
    }

    /** RFC 7306 section 7, "Atomic | RDMA Read": a READ posted after an atomic reads what the atomic wrote. */
    @Test
    void anAtomicThenAReadOnTheSameConnectionReadsTheAtomicsResult(RdmaTestDevice device) throws Exception {
        try (Setup s = pair(device)) {
            MemoryRegion word = atomicRegion(s.serverSide(), 8);
            MemoryRegion into = s.client().protectionDomain().allocate(8L * 100, Set.of(Access.LOCAL_WRITE));
            List<CompletableFuture<Void>> reads = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                var _ = s.client().fetchAdd(word.address(), word.rkey(), 3); // not waited for
                reads.add(s.client().read(into, 8L * i, 8, word.address(), word.rkey()));
            }
            for (int i = 0; i < 100; i++) {
                await(reads.get(i));
                assertEquals(3L * (i + 1), into.segment().get(JAVA_LONG, 8L * i), "READ " + i);
            }
        }
    }

    /**
     * The agent's atomicity holds against the server's own CPU using atomic access (VarHandle getAndAdd on the
     * high half while the clients' agents add to the low half): nothing lost on either side.
     */
    @Test
    void agentAtomicsAndTheServersCpuAtomicsLoseNothing(RdmaTestDevice device) throws Exception {
        try (Setup s = pair(device)) {
            MemoryRegion word = atomicRegion(s.serverSide(), 8);
            VarHandle handle = JAVA_LONG.varHandle();
            Thread cpu = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 20_000; i++) {
                    handle.getAndAdd(word.segment(), 0L, 1L << 32);
                }
            });
            List<CompletableFuture<Long>> adds = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                adds.add(s.client().fetchAdd(word.address(), word.rkey(), 1));
            }
            for (CompletableFuture<Long> f : adds) {
                await(f);
            }
            cpu.join();
            assertEquals(20_000L << 32 | 300, word.segment().get(JAVA_LONG, 0));
        }
    }

    // ---------------------------------------------------------------------------------------- immediate data

    @Test
    void immediateDataArrivesWithItsValueInOrder(RdmaTestDevice device) throws Exception {
        try (Setup s = pair(device)) {
            assertEquals(
                    ConnectionCapabilities.Provider.AGENT,
                    s.client().capabilities().immediateData());
            RdmaConnection client = s.client();
            RdmaConnection server = s.serverSide();
            MemoryRegion target = server.protectionDomain().allocate(64L * 60, TestAccess.ALL_REMOTE);
            MemoryRegion source = client.protectionDomain().allocate(64L * 60, Set.of(Access.LOCAL_WRITE));
            // a receive waiting for each message: the server's buffers are posted again as they are taken
            List<CompletableFuture<Received>> received = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                received.add(server.receive());
            }
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                if (i >= IN_FLIGHT) {
                    // iWARP has no receiver-not-ready retry: a message that finds no receive posted ends the
                    // connection (siw: TERMINATE, DDP untagged buffer error, "no buffer available"), so no more
                    // messages are in flight than the server has receive buffers, as any protocol on iWARP must
                    await(received.get(i - IN_FLIGHT));
                }
                byte[] bytes = ("message " + i).getBytes();
                MemorySegment.copy(bytes, 0, source.segment(), JAVA_BYTE, 64L * i, bytes.length);
                sent.add(
                        switch (i % 3) {
                            case 0 -> client.send(source, 64L * i, bytes.length);
                            case 1 -> client.sendWithImmediate(source, 64L * i, bytes.length, 0x1000 + i);
                            default ->
                                client.writeWithImmediate(
                                        source, 64L * i, 64, target.address() + 64L * i, target.rkey(), 0x80000000 | i);
                        });
            }
            for (CompletableFuture<Void> f : sent) {
                await(f);
            }
            for (int i = 0; i < 60; i++) {
                Received r = await(received.get(i));
                byte[] bytes = ("message " + i).getBytes();
                switch (i % 3) {
                    case 0 -> {
                        assertFalse(r.hasImmediate(), "message " + i);
                        assertArrayEquals(bytes, r.data(), "message " + i);
                    }
                    case 1 -> {
                        assertTrue(r.hasImmediate(), "message " + i);
                        assertEquals(0x1000 + i, r.immediate());
                        assertArrayEquals(bytes, r.data(), "message " + i);
                    }
                    default -> {
                        assertTrue(r.hasImmediate(), "message " + i);
                        assertEquals(0x80000000 | i, r.immediate());
                        assertEquals(0, r.length(), "a WRITE with immediate data delivers no bytes");
                        // RFC 7306 section 7: the Immediate Data completes after the WRITE is placed
                        assertArrayEquals(
                                bytes,
                                target.segment().asSlice(64L * i, bytes.length).toArray(JAVA_BYTE),
                                "the WRITE's bytes are there when its immediate data is received");
                    }
                }
            }
            assertEquals(40, client.agentStatistics().orElseThrow().immediateDataSent());
        }
    }

    /** Framed SENDs: full receive buffers both ways, including the largest message the peer takes. */
    @Test
    void sendsOfEverySizeUpToTheReceiveBufferArriveWhole(RdmaTestDevice device) throws Exception {
        try (Setup s = pair(device)) {
            int max = s.serverSide().receiveBufferSize();
            MemoryRegion out = s.client().protectionDomain().allocate(max, Set.of(Access.LOCAL_WRITE));
            byte[] data = new byte[max];
            new Random(5).nextBytes(data);
            MemorySegment.copy(data, 0, out.segment(), JAVA_BYTE, 0, max);
            for (int length : new int[] {0, 1, 8, max - 12, max - 1, max}) {
                try {
                    CompletableFuture<Received> r = s.serverSide().receive();
                    await(s.client().send(out, 0, length));
                    assertArrayEquals(java.util.Arrays.copyOf(data, length), await(r).data(), length + " bytes");
                    CompletableFuture<Received> ri = s.serverSide().receive();
                    await(s.client().sendWithImmediate(out, 0, length, length));
                    Received got = await(ri);
                    assertEquals(length, got.immediate());
                    assertArrayEquals(
                            java.util.Arrays.copyOf(data, length), got.data(), length + " bytes with immediate");
                } catch (Exception | AssertionError e) {
                    System.out.println("at " + length + " bytes: client " + s.client() + "; server " + s.serverSide());
                    throw e;
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------ bad input, refusals

    /** A requester's view of a refused request: the RFC's error, the device's status, and the connection's end. */
    @Test
    void anAtomicOnAnUnregisteredStagFailsWithTheRfcsErrorAndEndsTheConnection(RdmaTestDevice device) throws Exception {
        try (Setup s = pair(device)) {
            MemoryRegion word = atomicRegion(s.serverSide(), 8);
            Throwable t = failure(s.client().fetchAdd(word.address(), word.rkey() ^ 0x5a5a00, 1));
            AgentTerminatedException e = assertInstanceOf(AgentTerminatedException.class, t);
            assertEquals(TerminateError.INVALID_STAG, e.error());
            assertEquals(WcStatus.REM_ACCESS_ERR, e.status(), "what rxe's own atomics report for a bad rkey");
            System.out.println("refused: " + e.getMessage());
            assertEquals(0, word.segment().get(JAVA_LONG, 0));
            assertInstanceOf(
                    ConnectionClosedException.class,
                    failure(s.client().fetchAdd(word.address(), word.rkey(), 1)),
                    "and the connection is over, as after a device's remote access error");
            await(s.serverSide().disconnected());
            assertTrue(s.serverSide().isFailed());
            assertEquals(0, word.segment().get(JAVA_LONG, 0));
        }
    }

    @Test
    void aMisalignedAtomicIsRefusedBeforeAnythingIsSent(RdmaTestDevice device) throws Exception {
        try (Setup s = pair(device)) {
            MemoryRegion word = atomicRegion(s.serverSide(), 16);
            assertInstanceOf(
                    IllegalArgumentException.class, failure(s.client().fetchAdd(word.address() + 4, word.rkey(), 1)));
            assertEquals(0, s.serverSide().agentStatistics().orElseThrow().requestsExecuted());
            assertEquals(0L, await(s.client().fetchAdd(word.address() + 8, word.rkey(), 1)), "still usable");
        }
    }

    /**
     * Raw Atomic Requests from a peer that speaks bytes ({@link RawAgentPeer}): each bad one gets the RFC's error,
     * and the connection ends: closed by the peer after the Terminate, or, where the peer ignores it (the first
     * case), by the server itself after its linger.
     */
    @Test
    void everyBadRequestGetsTheRfcsTerminateAndLeavesMemoryUntouched(RdmaTestDevice device) throws Exception {
        record Case(String what, TerminateError expected, int stagChoice, long offset, int firstWord) {}
        List<Case> cases = List.of(
                new Case("unregistered STag", TerminateError.INVALID_STAG, 2, 0, 0),
                new Case("out of range", TerminateError.BASE_OR_BOUNDS, 0, 64, 0),
                new Case("straddling the end", TerminateError.BASE_OR_BOUNDS, 0, 60, 0),
                new Case("below the base", TerminateError.BASE_OR_BOUNDS, 0, -8, 0),
                new Case("misaligned", TerminateError.CATASTROPHIC_STREAM, 0, 12, 0),
                new Case("no REMOTE_ATOMIC right", TerminateError.ACCESS_RIGHTS, 1, 0, 0),
                new Case("Atomic Operation Code 1 (reserved)", TerminateError.UNEXPECTED_OPCODE, 0, 0, 1));
        for (Case c : cases) {
            try (RawAgentPeer raw = new RawAgentPeer(device, serverAddress(device), options())) {
                MemoryRegion atomic = atomicRegion(raw.served, 64);
                MemoryRegion noAtomic = raw.served
                        .protectionDomain()
                        .allocate(64, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
                atomic.segment().set(JAVA_LONG, 0, 42);
                noAtomic.segment().set(JAVA_LONG, 0, 43);
                MemoryRegion target = c.stagChoice() == 1 ? noAtomic : atomic;
                int stag = c.stagChoice() == 2 ? atomic.rkey() ^ 0x7700 : target.rkey();
                raw.sendRequest(c.firstWord(), 0, stag, target.address() + c.offset(), 1, 0, 0, -1);
                AgentWire.Message answer = raw.next();
                AgentWire.Terminate t = assertInstanceOf(AgentWire.Terminate.class, answer, c.what());
                assertEquals(c.expected(), t.error(), c.what());
                assertEquals(0, t.requestId(), c.what() + ": the Terminate names the request");
                assertEquals(42, atomic.segment().get(JAVA_LONG, 0), c.what() + ": memory untouched");
                assertEquals(43, noAtomic.segment().get(JAVA_LONG, 0), c.what() + ": memory untouched");
                // the server marks its side failed right after posting the Terminate: wait for that (not for
                // the disconnect, which a peer's own close would also cause)
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                while (!raw.served.isFailed() && System.nanoTime() - deadline < 0) {
                    Thread.sleep(5);
                }
                assertTrue(raw.served.isFailed(), c.what() + ": the server's side ended the stream");
                if (c != cases.get(0)) {
                    // a conforming peer closes the stream once it has read the Terminate (RFC 5040 section 7);
                    // the first case's ignores it, and the server disconnects by itself after its linger
                    raw.client.close();
                }
                await(raw.served.disconnected());
                System.out.println(c.what() + " -> " + t.error());
            }
        }
    }

    @Test
    void aRetransmittedRequestIsAnsweredAgainWithoutExecutingTwice(RdmaTestDevice device) throws Exception {
        try (RawAgentPeer raw = new RawAgentPeer(device, serverAddress(device), options())) {
            MemoryRegion word = atomicRegion(raw.served, 8);
            word.segment().set(JAVA_LONG, 0, 5);
            for (int copy = 0; copy < 3; copy++) {
                raw.sendRequest(0, 0, word.rkey(), word.address(), 10, 0, 0, -1);
            }
            for (int copy = 0; copy < 3; copy++) {
                AgentWire.AtomicResponse r = assertInstanceOf(AgentWire.AtomicResponse.class, raw.next());
                assertEquals(0, r.requestId());
                assertEquals(5, r.originalValue(), "the original value, every time");
            }
            assertEquals(15, word.segment().get(JAVA_LONG, 0), "executed exactly once");
            assertEquals(1, raw.served.agentStatistics().orElseThrow().requestsExecuted());
            assertEquals(2, raw.served.agentStatistics().orElseThrow().requestsReplayed());
            // out of sequence: request 5 where 1 is next
            raw.sendRequest(0, 5, word.rkey(), word.address(), 10, 0, 0, -1);
            AgentWire.Terminate t = assertInstanceOf(AgentWire.Terminate.class, raw.next());
            assertEquals(TerminateError.MSN_RANGE, t.error());
            assertEquals(15, word.segment().get(JAVA_LONG, 0));
        }
    }

    /**
     * A peer that ignores its ORD and floods Atomic Requests: the responder's state stays bounded (at most 2 x IRD
     * responses in its send queue, nothing queued in memory), every request that executed executed once (the
     * counter equals the executed count and every response received is distinct), and whatever the flood did to
     * the connection, the server process is fine.
     */
    @Test
    void aFloodOfRequestsBeyondIrdDoesNotGrowTheRespondersState(RdmaTestDevice device) throws Exception {
        int flood = 400;
        try (RawAgentPeer raw = new RawAgentPeer(device, serverAddress(device), options())) {
            MemoryRegion word = atomicRegion(raw.served, 8);
            List<CompletableFuture<Received>> answers = raw.expect(flood + 1);
            for (int i = 0; i < flood; i++) {
                var _ = raw.sendRequestNoWait(0, i, word.rkey(), word.address(), 1, 0, 0, -1);
            }
            BitSet seen = new BitSet();
            int responses = 0;
            AgentWire.Terminate terminate = null;
            for (CompletableFuture<Received> f : answers) {
                Received r;
                try {
                    r = f.get(20, TimeUnit.SECONDS);
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    break; // the connection ended, or nothing more comes
                }
                AgentWire.Message m = AgentWire.decode(MemorySegment.ofArray(r.data()));
                if (m instanceof AgentWire.AtomicResponse a) {
                    assertFalse(seen.get((int) a.originalValue()), "original " + a.originalValue() + " twice");
                    seen.set((int) a.originalValue());
                    responses++;
                } else {
                    terminate = assertInstanceOf(AgentWire.Terminate.class, m);
                    break;
                }
            }
            // the served side may still be executing what arrived before the flood's end (its poller drains the CQ
            // before it fails what is pending; it executes nothing once the connection has ended): read the counter
            // and the word once they agree and stay so
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long executed = -1;
            while (System.nanoTime() - deadline < 0) {
                long before = raw.served.agentStatistics().orElseThrow().requestsExecuted();
                TimeUnit.MILLISECONDS.sleep(200);
                long after = raw.served.agentStatistics().orElseThrow().requestsExecuted();
                if (before == after && after == word.segment().get(JAVA_LONG, 0)) {
                    executed = after;
                    break;
                }
            }
            AgentStatistics stats = raw.served.agentStatistics().orElseThrow();
            System.out.printf(
                    "flood of %d: %d answered, %s, executed %d, most responses unanswered at once %d " + "(bound %d)%n",
                    flood,
                    responses,
                    terminate == null ? "no Terminate" : terminate.error(),
                    stats.requestsExecuted(),
                    stats.unansweredHighWater(),
                    2 * DEPTH);
            assertTrue(stats.unansweredHighWater() <= 2 * DEPTH, "bounded by 2 x IRD");
            assertEquals(stats.requestsExecuted(), word.segment().get(JAVA_LONG, 0), "each executed once");
            assertEquals(executed, stats.requestsExecuted(), "the responder came to rest");
            assertEquals(responses, seen.cardinality());
            assertTrue(responses <= stats.requestsExecuted());
            if (terminate != null) {
                assertEquals(TerminateError.NO_BUFFER, terminate.error());
            } else if (responses < flood) {
                assertTrue(raw.served.isFailed() || raw.client.isFailed(), "the device ended the flood");
            }
        }
    }

    /** A peer without the agent: the operation only the agent could provide is refused before anything is sent. */
    @Test
    void aPeerWithoutTheAgentLeavesItOffAndItsSendsUnframed(RdmaTestDevice device) throws Exception {
        try (Setup s = new Setup(device, BASE, options(), 1)) {
            assertFalse(s.client().capabilities().agentActive());
            assertFalse(s.serverSide().capabilities().agentActive());
            assertTrue(s.client().agentStatistics().isEmpty());
            MemoryRegion word = atomicRegion(s.serverSide(), 8);
            if (!s.client().queuePair().supportsAtomics()) {
                Throwable t = failure(s.client().fetchAdd(word.address(), word.rkey(), 1));
                assertInstanceOf(UnsupportedOperationException.class, t);
                assertTrue(t.getMessage().contains("agent is not active"), t.getMessage());
                System.out.println("without the peer's agent: " + t.getMessage());
                assertInstanceOf(
                        UnsupportedOperationException.class,
                        failure(s.client().writeWithImmediate(word, 0, 8, word.address(), word.rkey(), 1)));
            } else {
                assertEquals(
                        ConnectionCapabilities.Provider.DEVICE,
                        s.client().capabilities().atomics());
                assertEquals(0L, await(s.client().fetchAdd(word.address(), word.rkey(), 1)), "by the device");
            }
            // the server's first message is the client's bytes, unframed: nothing of the agent's reached it
            MemoryRegion out = s.client().protectionDomain().allocate(16, Set.of(Access.LOCAL_WRITE));
            out.segment().setString(0, "plain");
            CompletableFuture<Received> r = s.serverSide().receive();
            await(s.client().send(out, 0, 6));
            assertArrayEquals("plain\0".getBytes(), await(r).data());
        }
    }
}
