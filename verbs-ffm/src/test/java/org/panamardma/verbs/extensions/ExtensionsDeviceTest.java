package org.panamardma.verbs.extensions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.ConnectOptions;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.Expect;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.PreparedQueuePair;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaCore;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.RemoteRegion;
import org.panamardma.verbs.TestAccess;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.WorkCompletionException;
import org.panamardma.verbs.WorkCompletions;

/** Masked atomics and the commit pipeline over real RDMA on rxe (clients on rxe0, the target on rxe1). */
@RdmaDeviceTest(transport = Transport.ROCE)
class ExtensionsDeviceTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** A client context with one QP connected to a QP of the shared target context. */
    private static QueuePair connectClient(Context clientCtx, ProtectionDomain targetPd, CompletionQueue targetCq)
            throws RdmaException {
        ProtectionDomain pd = clientCtx.allocateProtectionDomain();
        CompletionQueue cq = clientCtx.createCompletionQueue(16);
        PreparedQueuePair client = pd.queuePair().completionQueue(cq).prepare();
        PreparedQueuePair server =
                targetPd.queuePair().completionQueue(targetCq).prepare();
        QueuePair qp = client.connect(server.endpoint(), ConnectOptions.DEFAULTS.withRetryCount(2));
        server.connect(client.endpoint(), ConnectOptions.DEFAULTS.withRetryCount(2));
        return qp;
    }

    @Test
    void maskedFetchAddFromTwoRacingQueuePairsLosesNoUpdate(RdmaTestDevice device) throws Exception {
        String peer = device.peerName().orElseThrow();
        long mask = 0x8000_0000_8000_0000L; // two 32-bit counters in one word
        long add = 0x0000_0001_0000_0003L;
        int perClient = 60;
        try (Context target = Context.open(peer);
                Context c1 = Context.open(device.name());
                Context c2 = Context.open(device.name())) {
            ProtectionDomain targetPd = target.allocateProtectionDomain();
            CompletionQueue targetCq = target.createCompletionQueue(16);
            MemoryRegion word = targetPd.allocate(64, TestAccess.ALL_REMOTE);
            long initial = 0x0000_0007_FFFF_FFF0L; // the low counter wraps during the run
            word.segment().set(ValueLayout.JAVA_LONG, 0, initial);
            List<QueuePair> qps = List.of(connectClient(c1, targetPd, targetCq), connectClient(c2, targetPd, targetCq));
            ConcurrentLinkedQueue<Long> originals = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (QueuePair qp : qps) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try (QueuePairRemoteWord remote = new QueuePairRemoteWord(qp, word.remote(0, 8), TIMEOUT)) {
                        for (int i = 0; i < perClient; i++) {
                            originals.add(MaskedAtomics.fetchAdd(remote, add, mask));
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), () -> "client failed: " + failures.peek());
            long expected = initial;
            Set<Long> chain = new HashSet<>();
            for (int i = 0; i < 2 * perClient; i++) {
                chain.add(expected);
                expected = MaskedAtomics.fieldwiseAdd(expected, add, mask);
            }
            assertEquals(
                    expected,
                    word.segment().get(ValueLayout.JAVA_LONG, 0),
                    "the target word after " + 2 * perClient + " masked adds");
            assertEquals(chain, new HashSet<>(originals), "each successive value returned exactly once");
            assertEquals(2 * perClient, originals.size());
        }
    }

    @Test
    void maskedCompareSwapChangesOnlyTheMaskedBitsAndOnlyOnMatch(RdmaTestDevice device) throws Exception {
        try (Context target = Context.open(device.peerName().orElseThrow());
                Context client = Context.open(device.name())) {
            ProtectionDomain targetPd = target.allocateProtectionDomain();
            MemoryRegion word = targetPd.allocate(64, TestAccess.ALL_REMOTE);
            word.segment().set(ValueLayout.JAVA_LONG, 8, 0x1111_2222_3333_4444L);
            QueuePair qp = connectClient(client, targetPd, target.createCompletionQueue(16));
            try (QueuePairRemoteWord remote = new QueuePairRemoteWord(qp, word.remote(8, 8), TIMEOUT)) {
                long seen = MaskedAtomics.compareSwap(
                        remote, 0x4444L, 0xFFFFL, 0xAAAA_0000_0000_0000L, 0xFFFF_0000_0000_0000L);
                assertEquals(0x1111_2222_3333_4444L, seen);
                assertEquals(0xAAAA_2222_3333_4444L, word.segment().get(ValueLayout.JAVA_LONG, 8));
                long again = MaskedAtomics.compareSwap(remote, 0x9999L, 0xFFFFL, 0L, -1L);
                assertEquals(0xAAAA_2222_3333_4444L, again);
                assertEquals(
                        0xAAAA_2222_3333_4444L, word.segment().get(ValueLayout.JAVA_LONG, 8), "no match, no change");
            }
        }
    }

    private record Pipeline(
            Context target, Context client, QueuePair qp, MemoryRegion source, MemoryRegion data, MemoryRegion commit)
            implements AutoCloseable {
        static Pipeline open(RdmaTestDevice device) throws RdmaException {
            Context target = Context.open(device.peerName().orElseThrow());
            Context client = Context.open(device.name());
            ProtectionDomain targetPd = target.allocateProtectionDomain();
            Set<Access> access = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
            if (Expect.rxeKernelFlushAndAtomicWrite()) {
                access.add(Access.FLUSH_GLOBAL); // a kernel without FLUSH refuses the flag
            }
            MemoryRegion data = targetPd.allocate(16384, access);
            MemoryRegion commit = targetPd.allocate(64, Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            QueuePair qp = connectClient(client, targetPd, target.createCompletionQueue(16));
            MemoryRegion source = qp.protectionDomain().allocate(16384, TestAccess.ALL_REMOTE);
            byte[] bytes = new byte[8192];
            new Random(42).nextBytes(bytes);
            MemorySegment.copy(bytes, 0, source.segment(), ValueLayout.JAVA_BYTE, 0, bytes.length);
            return new Pipeline(target, client, qp, source, data, commit);
        }

        @Override
        public void close() {
            client.close();
            target.close();
        }
    }

    /**
     * Where the library (rdma-core 44: no FLUSH) or the kernel (before 6.2: neither) cannot, the pipeline is refused
     * with the reason before it posts anything; returns whether it was.
     */
    private static boolean refusedHere(Pipeline p, EmulatedVerify verify, RemoteRegion target) throws RdmaException {
        if (Expect.rxeFlush() && Expect.rxeAtomicWrite()) {
            return false;
        }
        UnsupportedOperationException e = assertThrows(
                UnsupportedOperationException.class,
                () -> CommitPipeline.run(
                        p.qp(),
                        verify,
                        p.source(),
                        0,
                        8192,
                        target,
                        FlushType.GLOBAL_VISIBILITY,
                        p.commit().remote(0, 8),
                        0xC0FFEEL,
                        TIMEOUT,
                        step -> fail("no step may run: " + step)));
        if (!Expect.libraryFlush()) {
            assertEquals(Expect.libraryRefusal(RdmaCore.Feature.FLUSH), e.getMessage());
        } else if (!Expect.libraryAtomicWrite()) {
            assertEquals(Expect.libraryRefusal(RdmaCore.Feature.ATOMIC_WRITE), e.getMessage());
        } else {
            assertEquals(
                    "the commit pipeline needs RDMA FLUSH and ATOMIC WRITE; " + p.qp().deviceName() + " lacks "
                            + "both (DeviceAttributes.supportsFlushGlobal, supportsAtomicWrite)",
                    e.getMessage());
        }
        try (WorkCompletions wc = WorkCompletions.allocate(4)) {
            assertEquals(0, p.qp().sendCompletionQueue().poll(wc), "not even the WRITE was posted");
        }
        assertEquals(0L, p.commit().segment().get(ValueLayout.JAVA_LONG, 0));
        return true;
    }

    @Test
    void writeFlushVerifyAtomicWriteCommitsIntactData(RdmaTestDevice device) throws RdmaException {
        for (VerifyHash hash : VerifyHash.values()) {
            try (Pipeline p = Pipeline.open(device);
                    EmulatedVerify verify = new EmulatedVerify(p.qp(), 8192, hash, TIMEOUT)) {
                if (refusedHere(p, verify, p.data().remote())) {
                    return;
                }
                List<CommitPipeline.Step> steps = new ArrayList<>();
                CommitPipeline.Outcome outcome = CommitPipeline.run(
                        p.qp(),
                        verify,
                        p.source(),
                        0,
                        8192,
                        p.data().remote(),
                        FlushType.GLOBAL_VISIBILITY,
                        p.commit().remote(0, 8),
                        0xC0FFEEL,
                        TIMEOUT,
                        steps::add);
                assertTrue(outcome.committed(), () -> hash + ": " + outcome);
                assertEquals(List.of(CommitPipeline.Step.values()), steps);
                assertEquals(0xC0FFEEL, p.commit().segment().get(ValueLayout.JAVA_LONG, 0), "commit word written");
                assertTrue(
                        p.data()
                                        .segment()
                                        .asSlice(0, 8192)
                                        .mismatch(p.source().segment().asSlice(0, 8192))
                                < 0,
                        "data placed");
            }
        }
    }

    @Test
    void verifyMismatchStopsThePipelineBeforeTheCommit(RdmaTestDevice device) throws RdmaException {
        try (Pipeline p = Pipeline.open(device);
                EmulatedVerify verify = new EmulatedVerify(p.qp(), 8192, VerifyHash.CRC32C, TIMEOUT)) {
            if (refusedHere(p, verify, p.data().remote())) {
                return;
            }
            CommitPipeline.Outcome outcome = CommitPipeline.run(
                    p.qp(),
                    verify,
                    p.source(),
                    0,
                    8192,
                    p.data().remote(),
                    FlushType.GLOBAL_VISIBILITY,
                    p.commit().remote(0, 8),
                    0xC0FFEEL,
                    TIMEOUT,
                    step -> {
                        if (step == CommitPipeline.Step.FLUSH) {
                            // the responder's memory is corrupted after the flush: VERIFY must catch it
                            p.data().segment().set(ValueLayout.JAVA_BYTE, 4000, (byte)
                                    ~p.data().segment().get(ValueLayout.JAVA_BYTE, 4000));
                        }
                    });
            assertEquals(CommitPipeline.Step.VERIFY, outcome.failedStep());
            assertTrue(outcome.cause() instanceof EmulatedVerify.VerifyMismatchException, String.valueOf(outcome));
            assertEquals(0L, p.commit().segment().get(ValueLayout.JAVA_LONG, 0), "no commit over bad data");
        }
    }

    @Test
    void aFailedWriteStopsThePipelineAtTheWriteStep(RdmaTestDevice device) throws RdmaException {
        try (Pipeline p = Pipeline.open(device);
                EmulatedVerify verify = new EmulatedVerify(p.qp(), 8192, VerifyHash.CRC32C, TIMEOUT)) {
            RemoteRegion wrongKey = new RemoteRegion(
                    p.data().address(), p.data().length(), p.data().rkey() ^ 0x100);
            if (refusedHere(p, verify, wrongKey)) {
                return;
            }
            CommitPipeline.Outcome outcome = CommitPipeline.run(
                    p.qp(),
                    verify,
                    p.source(),
                    0,
                    8192,
                    wrongKey,
                    FlushType.GLOBAL_VISIBILITY,
                    p.commit().remote(0, 8),
                    0xC0FFEEL,
                    TIMEOUT,
                    step -> {});
            assertEquals(CommitPipeline.Step.WRITE, outcome.failedStep(), String.valueOf(outcome));
            assertEquals(WcStatus.REM_ACCESS_ERR, ((WorkCompletionException) outcome.cause()).status());
            assertEquals(0L, p.commit().segment().get(ValueLayout.JAVA_LONG, 0));
        }
    }

    @Test
    void verifyOfMatchingAndMismatchingRanges(RdmaTestDevice device) throws RdmaException {
        try (Pipeline p = Pipeline.open(device);
                EmulatedVerify verify = new EmulatedVerify(p.qp(), 8192, VerifyHash.SHA_256, TIMEOUT)) {
            p.data().segment().asSlice(0, 100).fill((byte) 7);
            byte[] good = VerifyHash.SHA_256.digest(p.data().segment().asSlice(0, 100));
            verify.verify(p.data().remote(0, 100), good);
            assertEquals(32, verify.hash(p.data().remote(0, 100)).length);
            p.data().segment().set(ValueLayout.JAVA_BYTE, 50, (byte) 8);
            assertThrows(
                    EmulatedVerify.VerifyMismatchException.class,
                    () -> verify.verify(p.data().remote(0, 100), good));
        }
    }
}
