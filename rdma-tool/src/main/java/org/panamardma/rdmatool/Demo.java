package org.panamardma.rdmatool;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaCore;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.ConnectionCapabilities;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.Received;
import org.panamardma.verbs.connection.agent.AgentMode;
import org.panamardma.verbs.extensions.CommitPipeline;

/**
 * {@code rdma-tool demo}: the seeds' operations end to end, told in plain sentences. A server and several clients
 * in this one process, connected through rdma_cm (the server on the peer device's address, the clients on the
 * device the route picks): SEND / RDMA WRITE / RDMA READ; a counter in the server's memory incremented by every
 * client with FetchAdd and then a CmpSwap (RFC 7306); and draft-talpey-rdma-commit's WRITE -> FLUSH -> VERIFY ->
 * ATOMIC WRITE through {@link CommitPipeline}. Every connection runs the RFC 7306 agent where the device lacks atomics
 * ({@link AgentMode#WHERE_DEVICE_LACKS}): on siw the counter and the CmpSwap go through it, and the demo says so.
 * What no one provides (siw: FLUSH, ATOMIC WRITE) is skipped with the reason printed. The parts: bytes here, the
 * shared counter {@link DemoAtomics}, the commit {@link DemoCommit}; the server {@link DemoServer}, and how a client
 * learns where its memory is {@link RemoteMemory}.
 */
public final class Demo {
    public static final int DEFAULT_PORT = 7500;

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
                    host, serverAddress.getPort(), DemoServer.MEMORY / 1024);
            for (int i = 0; i < clientCount; i++) {
                clients.add(RdmaClient.connect(serverAddress, options));
            }
            List<RemoteMemory> remotes = new ArrayList<>();
            for (RdmaConnection c : clients) {
                remotes.add(RemoteMemory.ask(c, timeout));
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

            long expected = (long) clientCount * increments;
            ConnectionCapabilities.Provider atomics = first.capabilities().atomics();
            DemoAtomics.Outcome shared =
                    DemoAtomics.run(clients, remotes, server, atomics, increments, timeout, out, skipped);
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
                committed = DemoCommit.run(serverAddress, server, timeout, out);
            }
            out.println();
            Report report = new Report(
                    clientDevice,
                    serverDevice,
                    bytes,
                    shared.counter(),
                    expected,
                    shared.distinct(),
                    shared.casWon(),
                    shared.casLost(),
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
            RemoteMemory ra,
            RemoteMemory rb,
            MemorySegment memory,
            Duration timeout,
            PrintStream out)
            throws Exception {
        out.println("1. Moving bytes: SEND, RDMA WRITE and RDMA READ");
        byte[] hello = "Hello, RDMA! This message went there and back by SEND.".getBytes(StandardCharsets.US_ASCII);
        // only ever the source of a SEND and a WRITE: no peer touches it
        MemoryRegion msg = a.protectionDomain().allocate(DemoServer.DATA_LENGTH, Set.of(Access.LOCAL_WRITE));
        MemorySegment.copy(hello, 0, msg.segment(), JAVA_BYTE, 0, hello.length);
        CompletableFuture<Received> reply = a.receive();
        await(a.send(msg, 0, hello.length), timeout);
        boolean echoed = Arrays.equals(hello, await(reply, timeout).data());
        out.printf(
                "   Client 1 SENDs \"%s\"%n   (%d bytes); the server receives it and sends it back: %s%n",
                new String(hello, StandardCharsets.US_ASCII),
                hello.length,
                echoed ? "it came back intact." : "it came back DIFFERENT!");

        for (int i = 0; i < DemoServer.DATA_LENGTH; i++) {
            msg.segment().set(JAVA_BYTE, i, (byte) (i * 13 + 5));
        }
        await(a.write(msg, 0, DemoServer.DATA_LENGTH, ra.address() + DemoServer.DATA, ra.rkey()), timeout);
        boolean placed = placedWithin(
                memory.asSlice(DemoServer.DATA, DemoServer.DATA_LENGTH),
                msg.segment().asSlice(0, DemoServer.DATA_LENGTH),
                timeout);
        out.printf(
                "   Client 1 writes %d bytes straight into the server's memory with RDMA WRITE. The server's%n"
                        + "   program did nothing, yet the bytes are there: %s%n",
                DemoServer.DATA_LENGTH, placed ? "all " + DemoServer.DATA_LENGTH + " match." : "they DIFFER!");

        MemoryRegion into = b.protectionDomain().allocate(DemoServer.DATA_LENGTH, Set.of(Access.LOCAL_WRITE));
        await(b.read(into, 0, DemoServer.DATA_LENGTH, rb.address() + DemoServer.DATA, rb.rkey()), timeout);
        boolean readBack = into.segment().mismatch(msg.segment().asSlice(0, DemoServer.DATA_LENGTH)) == -1;
        out.printf(
                "   Client 2 reads those %d bytes back from the server with RDMA READ: %s%n%n",
                DemoServer.DATA_LENGTH, readBack ? "identical." : "DIFFERENT!");
        return echoed && placed && readBack;
    }

    /**
     * Whether {@code target} comes to hold {@code written} within {@code timeout}. A WRITE's completion tells the
     * writer its buffer is free again; on iWARP it does not tell that the peer's memory has the bytes (RFC 5040 section
     * 5.5: Soft-iWARP completes a WRITE once TCP took it), so the demo looks at the server's memory until they are
     * there, as a program that has nothing after the WRITE to order it by (a SEND or READ behind it) must.
     */
    static boolean placedWithin(MemorySegment target, MemorySegment written, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (target.mismatch(written) != -1) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
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
