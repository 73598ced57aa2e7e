package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.panamardma.testing.ChildJvm;
import org.panamardma.verbs.ffi.StubProvider;

/**
 * Issue 25 item 4, in a JVM of its own ({@link ChildJvm}): a post or a poll that fails in the middle of the extended
 * API's pairs must not leave the provider's lock held. rxe's {@code ibv_wr_start} and {@code ibv_start_poll} take a
 * spinlock that only {@code ibv_wr_complete}/{@code ibv_wr_abort} and {@code ibv_end_poll} release (rdma-core
 * providers/rxe/rxe.c, {@code wr_start}, {@code cq_start_poll}); the stub provider takes its own the same way. Left
 * held, the next post or poll on that QP or CQ spins forever inside a critical downcall, where no safepoint can
 * reach the thread: the whole JVM stops and only SIGKILL ends it. Hence a child JVM, which the test kills at its
 * deadline.
 *
 * <p>For each send path ({@link StubLoopback.Path}: "wr", every request through ibv_wr_* and polled with
 * ibv_start_poll; "ext", an extended QP and CQ as the library uses them; "legacy", ibv_post_send and a plain CQ),
 * misuses that fail with {@link IllegalStateException}, each followed by a valid request that must go
 * through: an inline SEND of a segment whose arena is closed, a SEND of a closed scatter/gather list, a poll into
 * closed {@link WorkCompletions} while a completion waits (which must still be there for the next poll). On a real
 * device the valid requests move real data to the peer, checked there. Prints {@code <path>.<step>=begin} before and
 * {@code <path>.<step>=<outcome>} after each step, then {@code done=true}.
 *
 * <p>Arguments: {@code stub} (the stub provider's loopback QP, on the host), or {@code DEVICE PEER} (two QPs
 * connected by hand across the testbed wire, e.g. rxe0 rxe1).
 */
final class AbortSafetyProbe {
    private static final long DEADLINE_NANOS = 20_000_000_000L;
    private static final int LENGTH = 32;

    /** Each step, and how its outcome must begin: the misuse refused, the valid request through. */
    private static final List<Map.Entry<String, String>> EXPECTED = List.of(
            Map.entry("closedInlineSend", "IllegalStateException"), Map.entry("sendAfter", "ok"),
            Map.entry("closedSgl", "IllegalStateException"), Map.entry("writeAfter", "ok"),
            Map.entry("closedCompletions", "IllegalStateException"), Map.entry("pollAfter", "ok"));

    private AbortSafetyProbe() {}

    /**
     * Runs the probe in a child JVM with {@code args} and fails unless it ended within {@code deadline} with every
     * step of both paths as {@link #EXPECTED}; a child still running at the deadline is killed and the message names
     * the step it was in.
     */
    static void assertNoLockLeftHeld(Duration deadline, String... args) throws Exception {
        ChildJvm.Result r = ChildJvm.run(AbortSafetyProbe.class, deadline, args);
        System.out.println(r.output());
        Map<String, String> v = r.values();
        if (!r.finished()) {
            String stuck = v.entrySet().stream()
                    .filter(e -> e.getValue().equals("begin"))
                    .map(Map.Entry::getKey)
                    .reduce((x, y) -> y)
                    .orElse("(before the first step)");
            fail("the probe's JVM was still in " + stuck + " after " + deadline.toSeconds() + " s and had to be "
                    + "killed with SIGKILL: a provider lock left held by a failed post or poll\n" + r.output());
        }
        assertEquals(0, r.exitCode(), r.output());
        for (String path : List.of("wr", "ext", "legacy")) {
            for (Map.Entry<String, String> e : EXPECTED) {
                String outcome = v.get(path + "." + e.getKey());
                assertTrue(
                        outcome != null && outcome.startsWith(e.getValue()),
                        path + "." + e.getKey() + ": " + outcome + ", expected " + e.getValue() + "...\n" + r.output());
            }
        }
        assertEquals("true", v.get("done"), r.output());
    }

    public static void main(String[] args) throws Exception {
        boolean stub = args[0].equals("stub");
        if (stub) {
            StubProvider.load(); // before anything touches libibverbs: the stub becomes this JVM's
        }
        for (StubLoopback.Path path : StubLoopback.Path.values()) {
            System.out.println(path + ".setup=begin");
            System.out.flush();
            try (Setup s = stub ? Setup.stub(path) : Setup.devices(args[0], args[1], path)) {
                System.out.println(path + ".setup=ok");
                run(s);
            }
        }
        System.out.println("done=true");
        System.out.flush();
        System.exit(0);
    }

    @FunctionalInterface
    private interface Step {
        String run() throws Exception;
    }

    private static void step(Setup s, String name, Step step) {
        String key = s.path + "." + name;
        System.out.println(key + "=begin");
        System.out.flush();
        String outcome;
        try {
            outcome = step.run();
        } catch (Exception e) {
            outcome = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        System.out.println(key + "=" + outcome);
        System.out.flush();
    }

    private static void run(Setup s) {
        QueuePair qp = s.qp;
        step(s, "closedInlineSend", () -> {
            Arena arena = Arena.ofShared();
            MemorySegment data = arena.allocate(LENGTH, 8);
            arena.close();
            qp.postSendInline(10, data, SendFlags.SIGNALED);
            return "posted";
        });
        step(s, "sendAfter", () -> s.send(11, (byte) 0x11));
        step(s, "closedSgl", () -> {
            ScatterGatherList sgl = new ScatterGatherList(2).add(s.local, 0, 16).add(s.local, 16, 16);
            sgl.close();
            qp.postSend(12, sgl, SendFlags.SIGNALED);
            return "posted";
        });
        step(s, "writeAfter", () -> s.write(13, (byte) 0x13));
        step(s, "closedCompletions", () -> {
            s.local.segment().asSlice(0, LENGTH).fill((byte) 0x14);
            qp.postWrite(14, s.local, 0, LENGTH, s.remoteAddress, s.remoteKey, SendFlags.SIGNALED);
            WorkCompletions closed = WorkCompletions.allocate(4);
            closed.close();
            long deadline = System.nanoTime() + DEADLINE_NANOS;
            // a closed array may be refused only once a completion is there to be read into it: poll until it is
            while (System.nanoTime() < deadline) {
                s.cq.poll(closed);
            }
            return "never refused";
        });
        step(s, "pollAfter", () -> {
            s.expect(14);
            return s.wrote((byte) 0x14) ? "ok, the completion was kept and the WRITE landed" : "the WRITE did not land";
        });
    }

    /** A QP on the stub (connected to itself) or across the wire, and the memory it sends from and writes to. */
    private static final class Setup implements AutoCloseable {
        final String path;
        final QueuePair qp;
        final CompletionQueue cq;
        final MemoryRegion local;
        /** The peer's QP and CQ, and its memory receives and WRITEs land in; null on the stub. */
        final QueuePair peer;

        final CompletionQueue peerCq;
        final MemoryRegion peerMemory;
        final long remoteAddress;
        final int remoteKey;
        final WorkCompletions wc = WorkCompletions.allocate(4);
        private final AutoCloseable[] owned;

        private Setup(
                StubLoopback.Path path,
                QueuePair qp,
                CompletionQueue cq,
                MemoryRegion local,
                QueuePair peer,
                CompletionQueue peerCq,
                MemoryRegion peerMemory,
                MemoryRegion writeTarget,
                AutoCloseable... owned) {
            this.path = switch (path) {
                case WORK_REQUESTS -> "wr";
                case EXTENDED -> "ext";
                case LEGACY -> "legacy";
            };
            this.qp = qp;
            this.cq = cq;
            this.local = local;
            this.peer = peer;
            this.peerCq = peerCq;
            this.peerMemory = peerMemory;
            this.remoteAddress = writeTarget.address() + 1024;
            this.remoteKey = writeTarget.rkey();
            this.owned = owned;
        }

        static Setup stub(StubLoopback.Path path) throws Exception {
            StubLoopback l = StubLoopback.open(path, 64);
            return new Setup(path, l.qp, l.cq, l.local, null, null, null, l.remote, l);
        }

        static Setup devices(String device, String peerDevice, StubLoopback.Path path) throws Exception {
            boolean extended = path != StubLoopback.Path.LEGACY;
            Context a = Context.open(device);
            Context b = Context.open(peerDevice);
            ProtectionDomain pdA = a.allocateProtectionDomain();
            ProtectionDomain pdB = b.allocateProtectionDomain();
            CompletionQueue cqA = a.createCompletionQueue(64, null, extended);
            if (path == StubLoopback.Path.WORK_REQUESTS) {
                cqA.pollWithExtendedApiForTest();
            }
            CompletionQueue cqB = b.createCompletionQueue(64);
            MemoryRegion local = pdA.allocate(4096, Set.of(Access.LOCAL_WRITE));
            MemoryRegion remote = pdB.allocate(4096, TestAccess.ALL_REMOTE);
            PreparedQueuePair pa = pdA.queuePair()
                    .completionQueue(cqA)
                    .maxSendSge(2)
                    .maxInlineData(64)
                    .legacySendPath(!extended)
                    .workRequestsForEveryOpcode(path == StubLoopback.Path.WORK_REQUESTS)
                    .prepare();
            PreparedQueuePair pb = pdB.queuePair().completionQueue(cqB).prepare();
            for (int i = 0; i < 4; i++) {
                pb.postReceive(100 + i, remote, i * 256L, 256);
            }
            QueuePair qa = pa.connect(pb.endpoint());
            QueuePair qb = pb.connect(pa.endpoint());
            if (qa.usesExtendedSendPath() != extended || cqA.isExtended() != extended) {
                throw new IllegalStateException(device + " has no extended QP or CQ: " + qa + ", " + cqA);
            }
            return new Setup(path, qa, cqA, local, qb, cqB, remote, remote, a, b);
        }

        /** A valid signaled SEND of {@value #LENGTH} bytes of {@code fill}: completes, and arrives at the peer. */
        String send(long wrId, byte fill) throws RdmaException {
            local.segment().asSlice(0, LENGTH).fill(fill);
            qp.postSend(wrId, local, 0, LENGTH, SendFlags.SIGNALED);
            expect(wrId);
            if (peer == null) {
                return "ok";
            }
            int i = pollOne(peerCq);
            wc.check(i);
            long at = (wc.wrId(i) - 100) * 256;
            for (int k = 0; k < LENGTH; k++) {
                if (peerMemory.segment().get(JAVA_BYTE, at + k) != fill) {
                    return "received " + wc.byteLength(i) + " bytes, not the ones sent";
                }
            }
            return "ok, " + wc.byteLength(i) + " bytes received by the peer";
        }

        /** A valid signaled RDMA WRITE of {@value #LENGTH} bytes of {@code fill}: completes, lands in the peer. */
        String write(long wrId, byte fill) throws RdmaException {
            local.segment().asSlice(0, LENGTH).fill(fill);
            qp.postWrite(wrId, local, 0, LENGTH, remoteAddress, remoteKey, SendFlags.SIGNALED);
            expect(wrId);
            return wrote(fill) ? "ok" : "the WRITE did not land";
        }

        boolean wrote(byte fill) {
            if (peer == null) {
                return true; // the stub moves no data
            }
            for (int k = 0; k < LENGTH; k++) {
                if (peerMemory.segment().get(JAVA_BYTE, 1024 + k) != fill) {
                    return false;
                }
            }
            return true;
        }

        void expect(long wrId) throws RdmaException {
            int i = pollOne(cq);
            wc.check(i);
            if (wc.wrId(i) != wrId) {
                throw new IllegalStateException("completion of " + wc.wrId(i) + ", expected " + wrId);
            }
        }

        private int pollOne(CompletionQueue q) throws RdmaException {
            long deadline = System.nanoTime() + DEADLINE_NANOS;
            while (System.nanoTime() < deadline) {
                if (q.poll(wc) > 0) {
                    return 0;
                }
                Thread.onSpinWait();
            }
            throw new IllegalStateException("no completion on " + q + " within 20 s");
        }

        @Override
        public void close() throws Exception {
            wc.close();
            for (AutoCloseable c : owned) {
                c.close();
            }
        }
    }
}
