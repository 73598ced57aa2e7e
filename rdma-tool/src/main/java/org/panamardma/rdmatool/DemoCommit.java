package org.panamardma.rdmatool;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RemoteRegion;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.cm.QueuePairOptions;
import org.panamardma.verbs.extensions.CommitPipeline;
import org.panamardma.verbs.extensions.EmulatedVerify;
import org.panamardma.verbs.extensions.VerifyHash;

/**
 * Part 3 of {@link Demo}: a record stored at the server and committed by draft-talpey-rdma-commit's WRITE -> FLUSH ->
 * VERIFY -> ATOMIC WRITE ({@link CommitPipeline}), then the server's memory checked.
 */
final class DemoCommit {
    /** What the commit word becomes when the record is committed. */
    static final long COMMIT_VALUE = 0x00C0FFEE_C0FFEEL;

    private DemoCommit() {}

    /**
     * Runs part 3 on a raw queue pair of its own ({@link CommitPipeline} polls the QP's send CQ itself, which a
     * connection-layer QP leaves to its poller thread): connect, take the server's memory description, run the
     * pipeline, check the server's memory.
     *
     * @return whether the record and the commit word are at the server
     */
    static boolean run(InetSocketAddress serverAddress, DemoServer server, Duration timeout, PrintStream out)
            throws Exception {
        server.memory.set(JAVA_LONG, DemoServer.COMMIT_WORD, 0L);
        server.memory.asSlice(DemoServer.DATA, DemoServer.DATA_LENGTH).fill((byte) 0);
        ProtectionDomain[] pd = new ProtectionDomain[1];
        CompletionQueue[] cq = new CompletionQueue[1];
        MemoryRegion[] mr = new MemoryRegion[1];
        try (EventChannel channel = EventChannel.create();
                WorkCompletions wc = WorkCompletions.allocate(4)) {
            CmConnector.Connection c = CmConnector.connectOnAFreePort(
                    channel,
                    serverAddress,
                    ConnectionParameters.DEFAULTS,
                    id -> {
                        Context ctx = id.context();
                        if (pd[0] == null) { // a second attempt (a new local port) reuses them
                            pd[0] = ctx.allocateProtectionDomain();
                            // the server's memory description is received into it, the question sent from it; the
                            // record is written from it
                            mr[0] = pd[0].allocate(
                                    DemoServer.DATA + DemoServer.DATA_LENGTH, Set.of(Access.LOCAL_WRITE));
                        }
                        // but not the CQ: a failed attempt's receive is flushed into it as its queue pair goes, and
                        // would be taken for the server's answer (CmConnector.connectOnAFreePort)
                        if (cq[0] != null) {
                            cq[0].close();
                        }
                        cq[0] = ctx.createCompletionQueue(64);
                        QueuePair q = id.createQueuePair(pd[0], QueuePairOptions.of(cq[0]));
                        q.postReceive(1L << 62, mr[0], 0, 64); // the server's memory description
                        return q;
                    },
                    timeout);
            try (c;
                    EmulatedVerify verify =
                            new EmulatedVerify(c.queuePair(), DemoServer.DATA_LENGTH, VerifyHash.CRC32C, timeout)) {
                RemoteMemory r = RemoteMemory.ask(c, cq[0], mr[0], 64, wc, timeout);
                MemorySegment source = mr[0].segment().asSlice(DemoServer.DATA, DemoServer.DATA_LENGTH);
                byte[] text = "A record that must be durable before it counts. ".getBytes(StandardCharsets.US_ASCII);
                for (int i = 0; i < DemoServer.DATA_LENGTH; i++) {
                    source.set(JAVA_BYTE, i, text[i % text.length]);
                }
                out.printf(
                        "   One more connection, on the bare verbs API, stores a %d-byte record at the server%n"
                                + "   and commits it: the commit word next to it goes from 0 to 0x%x only if every step%n"
                                + "   before succeeded.%n",
                        DemoServer.DATA_LENGTH, COMMIT_VALUE);
                CommitPipeline.Outcome outcome = CommitPipeline.run(
                        c.queuePair(),
                        verify,
                        mr[0],
                        DemoServer.DATA,
                        DemoServer.DATA_LENGTH,
                        new RemoteRegion(r.address() + DemoServer.DATA, DemoServer.DATA_LENGTH, r.rkey()),
                        FlushType.GLOBAL_VISIBILITY,
                        new RemoteRegion(r.address() + DemoServer.COMMIT_WORD, 8, r.rkey()),
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
                boolean data = server.memory
                                .asSlice(DemoServer.DATA, DemoServer.DATA_LENGTH)
                                .mismatch(source)
                        == -1;
                long word = server.memory.get(JAVA_LONG, DemoServer.COMMIT_WORD);
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
}
