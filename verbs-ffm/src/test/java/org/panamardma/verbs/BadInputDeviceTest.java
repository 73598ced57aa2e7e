package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** Misuse and bad input on a real device: each gives its error, and the process (and the pair) survive. */
@RdmaDeviceTest(transport = Transport.ROCE)
class BadInputDeviceTest {
    private RcPair pair;

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void wrongRkeyCompletesWithRemoteAccessErrorAndTheQpRecoversAfterReset(RdmaTestDevice device) throws Exception {
        pair = RcPair.open(
                device, q -> {}, ConnectOptions.DEFAULTS.withRetryCount(1).withTimeout(10));
        MemoryRegion local = pair.pdA.allocate(4096, TestAccess.ALL_REMOTE);
        MemoryRegion remote = pair.pdB.allocate(4096, TestAccess.ALL_REMOTE);
        pair.a.postWrite(1, local, 0, 64, remote.address(), remote.rkey() ^ 0x5a5a00, SendFlags.SIGNALED);
        pair.expectFailure(pair.cqA, 1, WcStatus.REM_ACCESS_ERR);
        WorkCompletionException e = assertThrows(WorkCompletionException.class, () -> pair.wc.check(0));
        assertTrue(
                e.getMessage().contains("IBV_WC_REM_ACCESS_ERR")
                        && e.getMessage().contains("vendor error"),
                e.getMessage());
        assertEquals(QpState.ERR, pair.a.state(), "a failed request puts the QP in the error state");

        // recovery: both sides reset and reconnect, and data moves again
        PreparedQueuePair pa = pair.a.reset();
        PreparedQueuePair pb = pair.b.reset();
        QueuePair a = pa.connect(pb.endpoint());
        pb.connect(pa.endpoint());
        assertEquals(QpState.RTS, a.state());
        local.segment().set(ValueLayout.JAVA_LONG, 0, 4242L);
        a.postWrite(2, local, 0, 8, remote.address(), remote.rkey(), SendFlags.SIGNALED);
        pair.expectSuccess(pair.cqA, 2, WcOpcode.RDMA_WRITE);
        assertEquals(4242L, remote.segment().get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void unalignedAtomicIsRefusedBeforePosting(RdmaTestDevice device) throws RdmaException {
        pair = RcPair.open(device);
        MemoryRegion local = pair.pdA.allocate(4096, TestAccess.ALL_REMOTE);
        MemoryRegion remote = pair.pdB.allocate(4096, TestAccess.ALL_REMOTE);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> pair.a.postFetchAdd(1, local, 0, remote.address() + 4, remote.rkey(), 1, SendFlags.SIGNALED));
        assertTrue(e.getMessage().contains("8-byte aligned"), e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> pair.a.postCompareSwap(2, local, 3, remote.address(), remote.rkey(), 0, 1, SendFlags.SIGNALED));
        if (Expect.rxeAtomicWrite()) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> pair.a.postAtomicWrite(3, remote.address() + 1, remote.rkey(), 1, SendFlags.SIGNALED));
        } else {
            // no ATOMIC WRITE at all here (a kernel before 6.2): that is said first
            Expect.assertAtomicWriteRefused(
                    pair.a.deviceName(),
                    () -> pair.a.postAtomicWrite(3, remote.address() + 1, remote.rkey(), 1, SendFlags.SIGNALED));
        }
        // nothing was posted, and the QP still works
        pair.a.postFetchAdd(4, local, 0, remote.address(), remote.rkey(), 1, SendFlags.SIGNALED);
        pair.expectSuccess(pair.cqA, 4, WcOpcode.FETCH_ADD);
        assertEquals(1L, remote.segment().get(ValueLayout.JAVA_LONG, 0));
    }

    /**
     * rxe rings its doorbell with a command written to the device's file, and the kernel refuses such commands from
     * a thread whose credentials are not the ones the file was opened with, even after they were changed back
     * (include/rdma/ib.h, ib_safe_file_access): the NFS server's caller threads, which take on each caller's
     * credentials, could never post (tried on 2026-11-29). The post says so, and the queue pair works on from a
     * thread that kept its credentials; the refused request was queued before the doorbell and runs at the next one.
     */
    @Test
    void aPostFromAThreadWhoseCredentialsChangedIsRefusedAndSaysWhy(RdmaTestDevice device) throws Exception {
        pair = RcPair.open(device);
        MemoryRegion local = pair.pdA.allocate(4096, TestAccess.ALL_REMOTE);
        MemoryRegion remote = pair.pdB.allocate(4096, TestAccess.ALL_REMOTE);
        local.segment().set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
        local.segment().set(ValueLayout.JAVA_LONG, 8, 0x0102030405060708L);
        Throwable[] thrown = new Throwable[1];
        Thread changed = Thread.ofPlatform().start(() -> {
            try {
                ChangedCredentials.onThisThread();
                pair.a.postWrite(1, local, 0, 8, remote.address(), remote.rkey(), SendFlags.SIGNALED);
            } catch (Throwable e) {
                thrown[0] = e;
            }
        });
        assertTrue(changed.join(java.time.Duration.ofSeconds(30)));
        RdmaException refused = assertInstanceOf(RdmaException.class, thrown[0], String.valueOf(thrown[0]));
        assertEquals(Errno.EACCES, refused.errno(), refused.getMessage());
        assertTrue(
                refused.getMessage().contains("credentials changed after the device was opened"), refused.getMessage());
        assertEquals(0L, remote.segment().get(ValueLayout.JAVA_LONG, 0), "not carried out: the kernel was not told");

        pair.a.postWrite(2, local, 8, 8, remote.address() + 8, remote.rkey(), SendFlags.SIGNALED);
        // one doorbell, both requests: their completions may come in one poll
        java.util.List<Long> done = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (done.size() < 2 && System.nanoTime() < deadline) {
            int n = pair.cqA.poll(pair.wc);
            for (int i = 0; i < n; i++) {
                assertTrue(pair.wc.isSuccess(i), String.valueOf(pair.wc.status(i)));
                assertEquals(WcOpcode.RDMA_WRITE, pair.wc.opcode(i));
                done.add(pair.wc.wrId(i));
            }
        }
        assertEquals(java.util.List.of(1L, 2L), done, "the refused request, then the next, in order");
        assertEquals(0x1122334455667788L, remote.segment().get(ValueLayout.JAVA_LONG, 0), "the refused one, queued");
        assertEquals(0x0102030405060708L, remote.segment().get(ValueLayout.JAVA_LONG, 8));
    }

    /**
     * A thread inherits the credentials of the thread that starts it, the very same ones (the kernel's
     * {@code copy_creds} shares them within a process), so a thread started by one whose credentials changed is
     * refused too, though it never changed anything itself. That is how a JDK thread could come to post from
     * changed credentials: a carrier thread of the virtual threads is started by whichever thread hands the
     * scheduler work when no carrier is idle, a thread that woke a virtual thread included. So the NFS server's
     * caller threads wake no virtual thread and start no thread (CallerThreads' waker does).
     */
    @Test
    void aThreadStartedByOneWhoseCredentialsChangedIsRefusedToo(RdmaTestDevice device) throws Exception {
        pair = RcPair.open(device);
        MemoryRegion local = pair.pdA.allocate(4096, TestAccess.ALL_REMOTE);
        MemoryRegion remote = pair.pdB.allocate(4096, TestAccess.ALL_REMOTE);
        local.segment().set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
        Throwable[] thrown = new Throwable[2];
        Thread changed = Thread.ofPlatform().start(() -> {
            try {
                ChangedCredentials.onThisThread();
                Thread child = Thread.ofPlatform().start(() -> {
                    try {
                        pair.a.postWrite(1, local, 0, 8, remote.address(), remote.rkey(), SendFlags.SIGNALED);
                    } catch (Throwable e) {
                        thrown[1] = e;
                    }
                });
                child.join();
            } catch (Throwable e) {
                thrown[0] = e;
            }
        });
        assertTrue(changed.join(java.time.Duration.ofSeconds(30)));
        assertEquals(null, thrown[0]);
        RdmaException refused = assertInstanceOf(RdmaException.class, thrown[1], String.valueOf(thrown[1]));
        assertEquals(Errno.EACCES, refused.errno(), refused.getMessage());
        assertTrue(
                refused.getMessage().contains("credentials changed after the device was opened"), refused.getMessage());
        assertEquals(0L, remote.segment().get(ValueLayout.JAVA_LONG, 0), "not carried out: the kernel was not told");
    }

    @Test
    void flushOfARegionWithoutFlushAccessFailsRemotely(RdmaTestDevice device) throws RdmaException {
        pair = RcPair.open(
                device, q -> {}, ConnectOptions.DEFAULTS.withRetryCount(1).withTimeout(10));
        MemoryRegion noFlush = pair.pdB.allocate(4096, TestAccess.ALL_REMOTE);
        if (!Expect.rxeFlush()) {
            Expect.assertFlushRefused(
                    pair.a.deviceName(),
                    () -> pair.a.postFlush(
                            1,
                            noFlush.address(),
                            noFlush.rkey(),
                            4096,
                            FlushType.GLOBAL_VISIBILITY,
                            FlushScope.RANGE,
                            SendFlags.SIGNALED));
            assertEquals(0, pair.cqA.poll(pair.wc), "nothing was posted");
            return;
        }
        pair.a.postFlush(
                1,
                noFlush.address(),
                noFlush.rkey(),
                4096,
                FlushType.GLOBAL_VISIBILITY,
                FlushScope.RANGE,
                SendFlags.SIGNALED);
        int i = pair.pollOne(pair.cqA);
        assertTrue(!pair.wc.isSuccess(i), "FLUSH without FLUSH_GLOBAL access must fail, got " + pair.wc.status(i));
        assertTrue(
                pair.wc.status(i) == WcStatus.REM_ACCESS_ERR || pair.wc.status(i) == WcStatus.REM_INV_REQ_ERR,
                "status " + pair.wc.status(i));
    }

    @Test
    void registeringAClosedSegmentFails(RdmaTestDevice device) throws RdmaException {
        try (Context ctx = Context.open(device.name());
                ProtectionDomain pd = ctx.allocateProtectionDomain()) {
            Arena arena = Arena.ofShared();
            MemorySegment segment = arena.allocate(4096);
            arena.close();
            IllegalStateException e =
                    assertThrows(IllegalStateException.class, () -> pd.register(segment, TestAccess.ALL_REMOTE));
            assertTrue(e.getMessage().contains("arena is already closed"), e.getMessage());
            assertThrows(
                    IllegalArgumentException.class,
                    () -> pd.register(MemorySegment.ofArray(new byte[64]), TestAccess.ALL_REMOTE),
                    "heap memory");
        }
    }

    @Test
    void memoryFreedUnderARegionIsDetectedOnUse(RdmaTestDevice device) throws RdmaException {
        pair = RcPair.open(device);
        Arena arena = Arena.ofShared();
        MemoryRegion mr = pair.pdA.register(arena.allocate(4096), TestAccess.ALL_REMOTE);
        arena.close();
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> pair.a.postSend(1, mr, 0, 8, SendFlags.SIGNALED));
        assertTrue(e.getMessage().contains("was freed"), e.getMessage());
    }

    @Test
    void postingOnAClosedQueuePairThrows(RdmaTestDevice device) throws RdmaException {
        pair = RcPair.open(device);
        MemoryRegion local = pair.pdA.allocate(4096, TestAccess.ALL_REMOTE);
        pair.a.close();
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> pair.a.postSend(1, local, 0, 8, SendFlags.SIGNALED));
        assertTrue(e.getMessage().contains("is closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> pair.a.postReceive(2, local, 0, 8));
        assertThrows(IllegalStateException.class, () -> pair.a.state());
    }

    @Test
    void postingMoreThanTheQueueDepthFailsAsQueueFull(RdmaTestDevice device) throws Exception {
        pair = RcPair.open(device, q -> q.sendQueueDepth(4), ConnectOptions.DEFAULTS.withRnrRetry(7));
        int depth = pair.a.sendQueueDepth();
        MemoryRegion local = pair.pdA.allocate(4096, TestAccess.ALL_REMOTE);
        MemoryRegion remote = pair.pdB.allocate(4096, TestAccess.ALL_REMOTE);
        // The queue must not drain while we post: rxe frees the slot of an unsignaled request as soon as it is
        // acknowledged, and under emulation its kernel thread can keep pace with a posting loop (one CI run in
        // several saw 15 posts to a queue of 7 succeed). So the first request is a SEND that B has no receive for:
        // B answers RNR NAK, A retries it forever (rnrRetry 7), and everything behind it on this reliable connection
        // stays outstanding, in order. The queue pair stays in RTS meanwhile.
        pair.a.postSend(1000, local, 0, 8, SendFlags.NONE);
        int posted = 1;
        RdmaException full = null;
        for (int i = 0; i < depth + 8; i++) {
            try {
                pair.a.postWrite(i, local, 0, 8, remote.address(), remote.rkey(), SendFlags.NONE);
                posted++;
            } catch (RdmaException e) {
                full = e;
                break;
            }
        }
        assertTrue(full != null, "posting " + (depth + 8) + " requests to a queue of " + depth + " must fail");
        assertTrue(full.errno() == Errno.ENOMEM || full.errno() == Errno.ENOSPC, full.getMessage());
        assertTrue(full.getMessage().contains("queue is full"), full.getMessage());
        // the device grants at least the depth asked (rxe rounds it up and may take one more than it reports)
        assertTrue(posted >= 4, "posted " + posted + " with depth " + depth);
        assertEquals(QpState.RTS, pair.a.state(), "a refused post leaves the queue pair working");
    }

    @Test
    void closingTheContextCascadesToEverythingUnderIt(RdmaTestDevice device) throws RdmaException {
        pair = RcPair.open(device);
        MemoryRegion mr = pair.pdA.allocate(4096, Set.of(Access.LOCAL_WRITE));
        pair.ctxA.close();
        assertTrue(pair.pdA.isClosed() && pair.cqA.isClosed() && pair.a.isClosed() && mr.isClosed());
        assertThrows(IllegalStateException.class, () -> pair.cqA.poll(pair.wc));
        assertThrows(IllegalStateException.class, () -> pair.pdA.allocate(64, TestAccess.ALL_REMOTE));
        assertThrows(IllegalStateException.class, () -> pair.ctxA.allocateProtectionDomain());
        // the other side is untouched
        assertTrue(!pair.b.isClosed());
    }

    @Test
    void unsupportedFlushPersistentOnOrdinaryMemoryIsRefusedByTheDevice(RdmaTestDevice device) throws RdmaException {
        try (Context ctx = Context.open(device.name());
                ProtectionDomain pd = ctx.allocateProtectionDomain()) {
            RdmaException e = assertThrows(
                    RdmaException.class, () -> pd.allocate(4096, Set.of(Access.LOCAL_WRITE, Access.FLUSH_PERSISTENT)));
            assertTrue(e.getMessage().contains("persistent memory"), e.getMessage());
        }
    }
}
