package org.panamardma.rdmatool;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaCore;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.RemoteRegion;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.cm.QueuePairOptions;
import org.panamardma.verbs.connection.ConnectionCapabilities;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;
import org.panamardma.verbs.connection.Received;
import org.panamardma.verbs.connection.agent.AgentMode;
import org.panamardma.verbs.extensions.CommitPipeline;
import org.panamardma.verbs.extensions.EmulatedVerify;
import org.panamardma.verbs.extensions.VerifyHash;

/**
 * {@code rdma-tool demo}: the seeds' operations end to end, told in plain sentences. A server and several clients
 * in this one process, connected through rdma_cm (the server on the peer device's address, the clients on the
 * device the route picks): SEND / RDMA WRITE / RDMA READ; a counter in the server's memory incremented by every
 * client with FetchAdd and then a CmpSwap (RFC 7306); and draft-talpey-rdma-commit's WRITE -> FLUSH -> VERIFY ->
 * ATOMIC WRITE through {@link CommitPipeline}. Every connection runs the RFC 7306 agent where the device lacks atomics
 * ({@link AgentMode#WHERE_DEVICE_LACKS}): on siw the counter and the CmpSwap go through it, and the demo says so.
 * What no one provides (siw: FLUSH, ATOMIC WRITE) is skipped with the reason printed.
 */
public final class Demo {
    public static final int DEFAULT_PORT = 7500;
    /** The server's memory: counter at 0, CmpSwap word at 8, commit word at 64, the data area from 4096. */
    static final int COUNTER = 0;

    static final int COMMIT_WORD = 64;
    static final int DATA = 4096;
    static final int DATA_LENGTH = 4096;
    static final int MEMORY = DATA + DATA_LENGTH;
    static final long COMMIT_VALUE = 0x00C0FFEE_C0FFEEL;

    private Demo() {}

    /**
     * What happened. {@code counter}/{@code casWon}/{@code committed} are null when skipped; {@code skipped} holds
     * the printed reasons; {@code atomics} says who executed the atomics (by device, by agent, not available).
     */
    public record Report(
            String clientDevice,
            String serverDevice,
            boolean bytesVerified,
            Long counter,
            long expectedCounter,
            boolean distinctOldValues,
            Boolean casWon,
            Boolean casLost,
            Boolean committed,
            List<String> skipped,
            ConnectionCapabilities.Provider atomics) {
        public boolean ok() {
            return bytesVerified
                    && (counter == null || (counter == expectedCounter && distinctOldValues))
                    && (casWon == null || (casWon && casLost))
                    && (committed == null || committed);
        }
    }

    /**
     * The server: one shared memory, registered in each connection's PD. A client's first message asks where it is;
     * the server answers with its address and key, then sends back whatever else the client sends (the SEND part of
     * the demo). The server never speaks first: a message a Soft-iWARP client receives together with the MPA reply
     * fails its connect (siw_cm.c, siw_recv_mpa_rr), and a server cannot know when its client has read that reply
     * until the client sends. The client's first message itself may be left unread by siw until the client sends
     * more; {@link RdmaServer} sees to that on its side (a zero-length READ when it finds the client's bytes
     * unread), so that any client's first message is answered, ours or not.
     */
    static final class DemoServer implements AutoCloseable {
        final Arena arena = Arena.ofShared();
        final MemorySegment memory = arena.allocate(MEMORY, 4096);
        final RdmaServer server;
        final List<RdmaConnection> connections = new CopyOnWriteArrayList<>();

        DemoServer(InetSocketAddress address, ConnectionOptions options) throws RdmaException {
            server = RdmaServer.listen(address, options, this::accepted);
        }

        private void accepted(RdmaConnection conn) {
            connections.add(conn);
            try {
                QueuePair qp = conn.queuePair();
                Set<Access> access = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
                if (qp.supportsAtomics() || conn.capabilities().agentActive()) {
                    access.add(Access.REMOTE_ATOMIC); // the agent checks the same right as the device
                }
                if (qp.supportsFlush()) {
                    access.add(Access.FLUSH_GLOBAL);
                }
                MemoryRegion mr = conn.protectionDomain().register(memory, access);
                MemoryRegion advert = conn.protectionDomain().allocate(DESCRIPTION, Set.of(Access.LOCAL_WRITE));
                advert.segment().asByteBuffer().putLong(mr.address()).putInt(mr.rkey());
                Thread.ofVirtual().name("demo-serve").start(() -> {
                    serve(conn, advert);
                    // the client went away (or the server closes): free the connection now, not at the end
                    connections.remove(conn);
                    conn.close();
                });
            } catch (RdmaException | RuntimeException e) {
                System.err.println("demo server: cannot serve " + conn + ": " + e);
                conn.close();
            }
        }

        /**
         * Answers the client's first message with the memory's description, and echoes every later one; returns
         * when the connection ends.
         */
        private static void serve(RdmaConnection conn, MemoryRegion advert) {
            try {
                conn.receive().get();
                conn.send(advert, 0, DESCRIPTION).get();
                MemoryRegion buf =
                        conn.protectionDomain().allocate(conn.receiveBufferSize(), Set.of(Access.LOCAL_WRITE));
                while (true) {
                    Received r = conn.receive().get();
                    MemorySegment.copy(r.data(), 0, buf.segment(), JAVA_BYTE, 0, r.length());
                    conn.send(buf, 0, r.length()).get();
                }
            } catch (ExecutionException | RdmaException | RuntimeException e) {
                // the connection closed: the demo is over for it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            server.close();
            arena.close();
        }
    }

    /** A client's first message: where is the memory? (Any bytes would do; these say what they are for.) */
    static final byte[] ASK = "where is your memory?".getBytes(StandardCharsets.US_ASCII);
    /** The server's answer: the memory's address (8 bytes) and key (4 bytes), padded. */
    static final int DESCRIPTION = 16;

    /** Asks the server where its memory is, on a connection-layer connection: the answer's address and key. */
    static Remote ask(RdmaConnection c, Duration timeout) throws Exception {
        try (MemoryRegion question = c.protectionDomain().allocate(ASK.length, Set.of(Access.LOCAL_WRITE))) {
            MemorySegment.copy(ASK, 0, question.segment(), JAVA_BYTE, 0, ASK.length);
            CompletableFuture<Received> answer = c.receive();
            await(c.send(question, 0, ASK.length), timeout);
            return Remote.of(await(answer, timeout).data());
        }
    }

    /**
     * Asks the server where its memory is, on the bare-verbs connection {@code c} whose receive of the answer into
     * {@code mr} at 0 is posted: SENDs the question from {@code mr} at {@code questionOffset} and waits for both
     * completions.
     */
    static Remote ask(
            CmConnector.Connection c,
            CompletionQueue cq,
            MemoryRegion mr,
            long questionOffset,
            WorkCompletions wc,
            Duration timeout)
            throws Exception {
        final long questionId = 1L << 61;
        MemorySegment.copy(ASK, 0, mr.segment(), JAVA_BYTE, questionOffset, ASK.length);
        c.queuePair().postSend(questionId, mr, questionOffset, ASK.length, SendFlags.SIGNALED);
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean sent = false;
        boolean answered = false;
        while (!sent || !answered) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                wc.check(i);
                if (wc.wrId(i) == questionId) {
                    sent = true;
                } else {
                    answered = true;
                }
            }
            if (n == 0) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("the server did not say where its memory is");
                }
                Thread.onSpinWait();
            }
        }
        return Remote.of(mr.segment().asSlice(0, 16).toArray(JAVA_BYTE));
    }

    record Remote(long address, int rkey) {
        static Remote of(byte[] message) {
            ByteBuffer b = ByteBuffer.wrap(message);
            return new Remote(b.getLong(0), b.getInt(8));
        }
    }

    /**
     * Runs the demo against a server it starts on {@code serverAddress} (an address of the peer device), with
     * {@code clientCount} clients each doing {@code increments} FetchAdds.
     */
    public static Report run(
            InetSocketAddress serverAddress, int clientCount, int increments, Duration timeout, PrintStream out)
            throws Exception {
        ConnectionOptions options =
                ConnectionOptions.DEFAULTS.withTimeout(timeout).withAgent(AgentMode.WHERE_DEVICE_LACKS);
        String host = serverAddress.getAddress().getHostAddress();
        List<String> skipped = new ArrayList<>();
        List<RdmaConnection> clients = new ArrayList<>();
        try (DemoServer server = new DemoServer(serverAddress, options)) {
            out.printf(
                    "A server starts listening on %s port %d. It owns %d KiB of memory that its clients may%n"
                            + "read, write and update remotely, without the server's CPU taking part.%n",
                    host, serverAddress.getPort(), MEMORY / 1024);
            for (int i = 0; i < clientCount; i++) {
                clients.add(RdmaClient.connect(serverAddress, options));
            }
            List<Remote> remotes = new ArrayList<>();
            for (RdmaConnection c : clients) {
                remotes.add(ask(c, timeout));
            }
            RdmaConnection first = clients.get(0);
            String clientDevice = first.deviceName();
            String serverDevice = server.connections.isEmpty()
                    ? "?"
                    : server.connections.get(0).deviceName();
            out.printf(
                    "%d clients connect to it through the RDMA connection manager (rdma_cm): the clients on %s,%n"
                            + "the server on %s. Each client asks where that memory is, and the server's answer gives%n"
                            + "its address and the key that grants access.%n%n",
                    clientCount, clientDevice, serverDevice);

            boolean bytes = moveBytes(
                    first,
                    clients.get(Math.min(1, clientCount - 1)),
                    remotes.get(0),
                    remotes.get(Math.min(1, clientCount - 1)),
                    server.memory,
                    timeout,
                    out);

            Long counter = null;
            boolean distinct = false;
            Boolean casWon = null;
            Boolean casLost = null;
            long expected = (long) clientCount * increments;
            out.println("2. A shared counter updated by every client at once (RFC 7306 remote atomics)");
            ConnectionCapabilities.Provider atomics = first.capabilities().atomics();
            if (atomics == ConnectionCapabilities.Provider.NONE) {
                String why = clientDevice + " has no remote atomics (its atomic_cap is NONE, as on every Soft-iWARP "
                        + "device)\n   and the server did not accept the RFC 7306 agent: FetchAdd and CmpSwap are "
                        + "skipped.";
                skipped.add(why);
                out.println("   Skipped: " + why);
            } else {
                if (atomics == ConnectionCapabilities.Provider.AGENT) {
                    out.printf(
                            "   %s has no remote atomics of its own (atomic_cap NONE, as on every Soft-iWARP device),%n"
                                    + "   so they run BY THE RFC 7306 AGENT: each FetchAdd and CmpSwap travels as an Atomic%n"
                                    + "   Request (RFC 7306 section 5) in a SEND; the server's agent checks the key, range and%n"
                                    + "   rights as a device would, executes it atomically on its memory and answers with the%n"
                                    + "   original value.%n",
                            clientDevice);
                }
                server.memory.set(JAVA_LONG, COUNTER, 0L);
                out.printf(
                        "   The counter in the server's memory starts at 0. Each of the %d clients adds 1 to it%n"
                                + "   %d times with FetchAdd, all at the same time, %s.%n",
                        clientCount,
                        increments,
                        atomics == ConnectionCapabilities.Provider.DEVICE
                                ? "without asking the server's CPU"
                                : "by the agent (the server's program does nothing)");
                List<CompletableFuture<Long>> olds = new ArrayList<>();
                for (int k = 0; k < increments; k++) {
                    for (int c = 0; c < clientCount; c++) {
                        Remote r = remotes.get(c);
                        olds.add(clients.get(c).fetchAdd(r.address() + COUNTER, r.rkey(), 1L));
                    }
                }
                BitSet seen = new BitSet();
                distinct = true;
                for (CompletableFuture<Long> f : olds) {
                    long v = await(f, timeout);
                    if (v < 0 || v >= expected || seen.get((int) v)) {
                        distinct = false;
                    } else {
                        seen.set((int) v);
                    }
                }
                counter = server.memory.get(JAVA_LONG, COUNTER);
                out.printf(
                        "   The counter now reads %d; %d clients x %d increments = %d: %s%n",
                        counter, clientCount, increments, expected, counter == expected ? "correct." : "WRONG!");
                out.printf(
                        "   %s%n",
                        distinct
                                ? "Each FetchAdd returned the value it replaced, and all " + expected
                                        + " of them were\n" + "   different (0 to " + (expected - 1)
                                        + "): no increment was lost or applied twice."
                                : "Some FetchAdds returned the same old value: increments were lost!");
                Remote r0 = remotes.get(0);
                long won = await(first.compareSwap(r0.address() + COUNTER, r0.rkey(), expected, 1000L), timeout);
                casWon = won == expected && server.memory.get(JAVA_LONG, COUNTER) == 1000L;
                out.printf(
                        "   Client 1 uses CmpSwap: \"if the counter is still %d, make it 1000\". It was %d, so the swap%n"
                                + "   happened: the counter is now %d.%n",
                        expected, won, server.memory.get(JAVA_LONG, COUNTER));
                RdmaConnection second = clients.get(Math.min(1, clientCount - 1));
                Remote r1 = remotes.get(Math.min(1, clientCount - 1));
                long lost = await(second.compareSwap(r1.address() + COUNTER, r1.rkey(), expected, 2000L), timeout);
                casLost = lost == 1000L && server.memory.get(JAVA_LONG, COUNTER) == 1000L;
                out.printf(
                        "   Client %d tries the same with 2000, but the counter is %d, not %d: its swap is refused,%n"
                                + "   the counter stays %d. That is how clients can take a lock or claim a slot safely.%n",
                        Math.min(2, clientCount), lost, expected, server.memory.get(JAVA_LONG, COUNTER));
            }
            out.println();

            out.println("3. A durable commit: WRITE -> FLUSH -> VERIFY -> ATOMIC WRITE (draft-talpey-rdma-commit)");
            Boolean committed = null;
            QueuePair qp = first.queuePair();
            if (!qp.supportsFlush() || !qp.supportsAtomicWrite()) {
                String why = (!RdmaCore.Feature.FLUSH.isAvailable()
                                ? "the installed rdma-core has no RDMA FLUSH (it came in rdma-core "
                                        + RdmaCore.Feature.FLUSH.since() + "; this is " + rdmaCore() + ")"
                                : clientDevice + " has no RDMA FLUSH"
                                        + (qp.supportsAtomicWrite() ? "" : " and no ATOMIC WRITE")
                                        + " (Soft-iWARP implements neither; Soft-RoCE both from "
                                        + "Linux 6.2)")
                        + ":\n   the commit pipeline is skipped; the WRITE and READ of part 1 are what it can do.";
                skipped.add(why);
                out.println("   Skipped: " + why);
            } else {
                committed = commit(serverAddress, server, timeout, out);
            }
            out.println();
            Report report = new Report(
                    clientDevice,
                    serverDevice,
                    bytes,
                    counter,
                    expected,
                    distinct,
                    casWon,
                    casLost,
                    committed,
                    List.copyOf(skipped),
                    atomics);
            out.println(
                    report.ok()
                            ? "Everything the device supports worked, and every byte and value was checked."
                            : "SOMETHING WENT WRONG: see above.");
            return report;
        } finally {
            for (RdmaConnection c : clients) {
                c.close();
            }
        }
    }

    /** Part 1: SEND (echoed), RDMA WRITE into the server's memory, RDMA READ back by another client. */
    private static boolean moveBytes(
            RdmaConnection a,
            RdmaConnection b,
            Remote ra,
            Remote rb,
            MemorySegment memory,
            Duration timeout,
            PrintStream out)
            throws Exception {
        out.println("1. Moving bytes: SEND, RDMA WRITE and RDMA READ");
        byte[] hello = "Hello, RDMA! This message went there and back by SEND.".getBytes(StandardCharsets.US_ASCII);
        // only ever the source of a SEND and a WRITE: no peer touches it
        MemoryRegion msg = a.protectionDomain().allocate(DATA_LENGTH, Set.of(Access.LOCAL_WRITE));
        MemorySegment.copy(hello, 0, msg.segment(), JAVA_BYTE, 0, hello.length);
        CompletableFuture<Received> reply = a.receive();
        await(a.send(msg, 0, hello.length), timeout);
        boolean echoed = Arrays.equals(hello, await(reply, timeout).data());
        out.printf(
                "   Client 1 SENDs \"%s\"%n   (%d bytes); the server receives it and sends it back: %s%n",
                new String(hello, StandardCharsets.US_ASCII),
                hello.length,
                echoed ? "it came back intact." : "it came back DIFFERENT!");

        for (int i = 0; i < DATA_LENGTH; i++) {
            msg.segment().set(JAVA_BYTE, i, (byte) (i * 13 + 5));
        }
        await(a.write(msg, 0, DATA_LENGTH, ra.address() + DATA, ra.rkey()), timeout);
        boolean placed =
                memory.asSlice(DATA, DATA_LENGTH).mismatch(msg.segment().asSlice(0, DATA_LENGTH)) == -1;
        out.printf(
                "   Client 1 writes %d bytes straight into the server's memory with RDMA WRITE. The server's%n"
                        + "   program did nothing, yet the bytes are there: %s%n",
                DATA_LENGTH, placed ? "all " + DATA_LENGTH + " match." : "they DIFFER!");

        MemoryRegion into = b.protectionDomain().allocate(DATA_LENGTH, Set.of(Access.LOCAL_WRITE));
        await(b.read(into, 0, DATA_LENGTH, rb.address() + DATA, rb.rkey()), timeout);
        boolean readBack = into.segment().mismatch(msg.segment().asSlice(0, DATA_LENGTH)) == -1;
        out.printf(
                "   Client 2 reads those %d bytes back from the server with RDMA READ: %s%n%n",
                DATA_LENGTH, readBack ? "identical." : "DIFFERENT!");
        return echoed && placed && readBack;
    }

    /**
     * Part 3 on a raw queue pair of its own ({@link CommitPipeline} polls the QP's send CQ itself, which a
     * connection-layer QP leaves to its poller thread): connect, take the server's memory description, run the
     * pipeline, check the server's memory.
     */
    private static boolean commit(InetSocketAddress serverAddress, DemoServer server, Duration timeout, PrintStream out)
            throws Exception {
        server.memory.set(JAVA_LONG, COMMIT_WORD, 0L);
        server.memory.asSlice(DATA, DATA_LENGTH).fill((byte) 0);
        ProtectionDomain[] pd = new ProtectionDomain[1];
        CompletionQueue[] cq = new CompletionQueue[1];
        MemoryRegion[] mr = new MemoryRegion[1];
        try (EventChannel channel = EventChannel.create();
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            CmConnector.Connection c = CmConnector.connect(
                    channel,
                    serverAddress,
                    ConnectionParameters.DEFAULTS,
                    id -> {
                        Context ctx = id.context();
                        pd[0] = ctx.allocateProtectionDomain();
                        cq[0] = ctx.createCompletionQueue(64);
                        // the server's memory description is received into it, the question sent from it; the record
                        // is written from it
                        mr[0] = pd[0].allocate(DATA + DATA_LENGTH, Set.of(Access.LOCAL_WRITE));
                        QueuePair q = id.createQueuePair(pd[0], QueuePairOptions.of(cq[0]));
                        q.postReceive(1L << 62, mr[0], 0, 64); // the server's memory description
                        return q;
                    },
                    timeout);
            try (c;
                    EmulatedVerify verify =
                            new EmulatedVerify(c.queuePair(), DATA_LENGTH, VerifyHash.CRC32C, timeout)) {
                Remote r = ask(c, cq[0], mr[0], 64, wc, timeout);
                MemorySegment source = mr[0].segment().asSlice(DATA, DATA_LENGTH);
                byte[] text = "A record that must be durable before it counts. ".getBytes(StandardCharsets.US_ASCII);
                for (int i = 0; i < DATA_LENGTH; i++) {
                    source.set(JAVA_BYTE, i, text[i % text.length]);
                }
                out.printf(
                        "   One more connection, on the bare verbs API, stores a %d-byte record at the server%n"
                                + "   and commits it: the commit word next to it goes from 0 to 0x%x only if every step%n"
                                + "   before succeeded.%n",
                        DATA_LENGTH, COMMIT_VALUE);
                CommitPipeline.Outcome outcome = CommitPipeline.run(
                        c.queuePair(),
                        verify,
                        mr[0],
                        DATA,
                        DATA_LENGTH,
                        new RemoteRegion(r.address() + DATA, DATA_LENGTH, r.rkey()),
                        FlushType.GLOBAL_VISIBILITY,
                        new RemoteRegion(r.address() + COMMIT_WORD, 8, r.rkey()),
                        COMMIT_VALUE,
                        timeout,
                        step -> out.println("   - "
                                + switch (step) {
                                    case WRITE -> "WRITE: the record's bytes are placed in the server's memory.";
                                    case FLUSH ->
                                        "FLUSH: the server's device confirms they are globally visible\n"
                                                + "     (no longer in flight).";
                                    case VERIFY ->
                                        "VERIFY: the record is read back and its CRC32C matches ("
                                                + HexFormat.of().formatHex(VerifyHash.CRC32C.digest(source))
                                                + ");\n     emulated by an RDMA READ, since no device implements VERIFY yet.";
                                    case ATOMIC_WRITE ->
                                        "ATOMIC WRITE: the commit word is set in one indivisible 8-byte write.";
                                }));
                if (!outcome.committed()) {
                    out.printf("   The pipeline stopped at %s: %s%n", outcome.failedStep(), outcome.cause());
                    return false;
                }
                boolean data = server.memory.asSlice(DATA, DATA_LENGTH).mismatch(source) == -1;
                long word = server.memory.get(JAVA_LONG, COMMIT_WORD);
                out.printf(
                        "   At the server: the record %s, and the commit word reads 0x%x.%n",
                        data ? "is there byte for byte" : "DIFFERS", word);
                return data && word == COMMIT_VALUE;
            }
        } finally {
            for (AutoCloseable r : new AutoCloseable[] {mr[0], cq[0], pd[0]}) {
                if (r != null) {
                    try {
                        r.close();
                    } catch (Exception | Error ignored) {
                        // gone with its context
                    }
                }
            }
        }
    }

    static <T> T await(CompletableFuture<T> f, Duration timeout) throws Exception {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    private static String rdmaCore() {
        try {
            return "rdma-core " + RdmaCore.version();
        } catch (RdmaException e) {
            return "an rdma-core of unknown release";
        }
    }
}
