package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/**
 * Type 2 memory windows on Soft-RoCE, on every send path ({@code ibv_wr_bind_mw} / {@code ibv_wr_local_inv} of the
 * extended API, {@code IBV_WR_BIND_MW} / {@code IBV_WR_LOCAL_INV} through {@code ibv_post_send} on an extended QP,
 * the library's default there, and on a QP of the legacy API): {@code a} (rxe0)
 * binds windows over its memory, {@code b} (rxe1, the peer) writes and reads through them; each test asserts what
 * changed, or did not change, in {@code a}'s memory, and the status the peer's request completed with.
 */
@RdmaDeviceTest(transport = Transport.ROCE)
class MemoryWindowDeviceTest {
    private static final int PAGE = 4096;
    private static final Set<Access> BIND_ONLY = Set.of(Access.LOCAL_WRITE, Access.MW_BIND);

    private RcPair pair;
    /** Three pages of a's: registered for windows only (no remote right of its own). */
    private MemoryRegion target;
    /** b's source and sink of 64 bytes. */
    private MemoryRegion peerBuffer;

    /** How a's QP posts its binds and invalidations. */
    enum SendPathUnderTest {
        /** ibv_wr_bind_mw and ibv_wr_local_inv (ibv_qp_ex), as every opcode there. */
        WORK_REQUESTS,
        /** ibv_post_send on a QP of ibv_create_qp_ex: the library's default on rxe. */
        POST_SEND_ON_EXTENDED_QP,
        /** ibv_post_send on a QP of ibv_create_qp. */
        LEGACY
    }

    private void open(RdmaTestDevice device, SendPathUnderTest path) throws RdmaException {
        boolean legacy = path == SendPathUnderTest.LEGACY;
        pair = RcPair.open(
                device,
                q -> q.legacySendPath(legacy).workRequestsForEveryOpcode(path == SendPathUnderTest.WORK_REQUESTS),
                ConnectOptions.DEFAULTS);
        assertEquals(!legacy, pair.a.usesExtendedSendPath());
        assertTrue(pair.ctxA.attributes().supportsMemoryWindows(), "rxe has type 2B windows");
        assertTrue(pair.a.supportsMemoryWindows());
        target = pair.pdA.allocate(3 * PAGE, BIND_ONLY);
        peerBuffer = pair.pdB.allocate(PAGE, Set.of(Access.LOCAL_WRITE));
        peerBuffer.segment().asSlice(0, 64).fill((byte) 0x5A);
    }

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    /** Binds {@code mw} to the middle page with {@code access}; returns the new key after the bind completed. */
    private int bindMiddlePage(MemoryWindow mw, Set<Access> access, long wrId) throws RdmaException {
        int key = mw.nextRkey();
        pair.a.postBindMemoryWindow(wrId, mw, key, target, PAGE, PAGE, access, SendFlags.SIGNALED);
        pair.expectSuccess(pair.cqA, wrId, WcOpcode.BIND_MW);
        assertEquals(key, mw.rkey());
        assertTrue(mw.isBound());
        return key;
    }

    private void peerWrites(long address, int rkey, long wrId) throws RdmaException {
        pair.b.postWrite(wrId, peerBuffer, 0, 64, address, rkey, SendFlags.SIGNALED);
    }

    private byte[] targetBytes() {
        return target.segment().toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] expectedAfterWriteAt(byte[] before, int offset) {
        byte[] after = before.clone();
        Arrays.fill(after, offset, offset + 64, (byte) 0x5A);
        return after;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(SendPathUnderTest.class)
    void thePeerWritesThroughABoundWindowAndNotOnceItIsInvalidated(SendPathUnderTest path, RdmaTestDevice device)
            throws RdmaException {
        open(device, path);
        try (MemoryWindow mw = pair.pdA.allocateMemoryWindow()) {
            int key = bindMiddlePage(mw, Set.of(Access.REMOTE_WRITE), 1);
            byte[] before = targetBytes();
            peerWrites(target.address() + PAGE + 100, key, 2);
            pair.expectSuccess(pair.cqB, 2, WcOpcode.RDMA_WRITE);
            byte[] written = targetBytes();
            assertArrayEquals(expectedAfterWriteAt(before, PAGE + 100), written, "the peer's 64 bytes, and no more");

            pair.a.postInvalidate(3, mw, SendFlags.SIGNALED);
            pair.expectSuccess(pair.cqA, 3, WcOpcode.LOCAL_INV);
            assertFalse(mw.isBound());
            assertThrows(
                    IllegalStateException.class,
                    () -> pair.a.postInvalidate(4, mw, SendFlags.SIGNALED),
                    "a free window is not invalidated again (rxe's kernel would crash)");

            peerBuffer.segment().asSlice(0, 64).fill((byte) 0x77);
            peerWrites(target.address() + PAGE + 100, key, 5);
            pair.expectFailure(pair.cqB, 5, WcStatus.REM_ACCESS_ERR);
            assertArrayEquals(written, targetBytes(), "nothing landed after the invalidation");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(SendPathUnderTest.class)
    void everyBindTakesANewKeyAndTheOldKeyIsRefused(SendPathUnderTest path, RdmaTestDevice device)
            throws RdmaException {
        open(device, path);
        try (MemoryWindow mw = pair.pdA.allocateMemoryWindow()) {
            int first = bindMiddlePage(mw, Set.of(Access.REMOTE_WRITE), 1);
            pair.a.postInvalidate(2, mw, SendFlags.SIGNALED);
            pair.expectSuccess(pair.cqA, 2, WcOpcode.LOCAL_INV);
            int second = bindMiddlePage(mw, Set.of(Access.REMOTE_WRITE), 3);
            assertNotEquals(first, second);
            assertEquals(first & ~0xff, second & ~0xff, "the same window: only the key byte moved");
            assertEquals(MemoryWindow.nextRkey(first), second);

            byte[] before = targetBytes();
            peerWrites(target.address() + PAGE, second, 4);
            pair.expectSuccess(pair.cqB, 4, WcOpcode.RDMA_WRITE);
            byte[] written = targetBytes();
            assertArrayEquals(expectedAfterWriteAt(before, PAGE), written);

            peerBuffer.segment().asSlice(0, 64).fill((byte) 0x77);
            peerWrites(target.address() + PAGE, first, 5);
            pair.expectFailure(pair.cqB, 5, WcStatus.REM_ACCESS_ERR);
            assertArrayEquals(written, targetBytes(), "the replayed key wrote nothing");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(SendPathUnderTest.class)
    void aWindowGrantsOnlyItsRights(SendPathUnderTest path, RdmaTestDevice device) throws RdmaException {
        open(device, path);
        try (MemoryWindow mw = pair.pdA.allocateMemoryWindow()) {
            int key = bindMiddlePage(mw, Set.of(Access.REMOTE_WRITE), 1);
            pair.b.postRead(2, peerBuffer, 0, 64, target.address() + PAGE, key, SendFlags.SIGNALED);
            pair.expectFailure(pair.cqB, 2, WcStatus.REM_ACCESS_ERR);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(SendPathUnderTest.class)
    void theRegionsOwnKeyGivesThePeerNothing(SendPathUnderTest path, RdmaTestDevice device) throws RdmaException {
        open(device, path);
        try (MemoryWindow mw = pair.pdA.allocateMemoryWindow()) {
            bindMiddlePage(mw, Set.of(Access.REMOTE_WRITE), 1);
            byte[] before = targetBytes();
            peerWrites(target.address() + PAGE, target.rkey(), 2);
            pair.expectFailure(pair.cqB, 2, WcStatus.REM_ACCESS_ERR);
            assertArrayEquals(before, targetBytes());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(SendPathUnderTest.class)
    void closingABoundWindowRevokesItWithoutARequest(SendPathUnderTest path, RdmaTestDevice device)
            throws RdmaException {
        open(device, path);
        MemoryWindow mw = pair.pdA.allocateMemoryWindow();
        int key = bindMiddlePage(mw, Set.of(Access.REMOTE_WRITE), 1);
        mw.close(); // ibv_dealloc_mw
        byte[] before = targetBytes();
        peerWrites(target.address() + PAGE, key, 2);
        pair.expectFailure(pair.cqB, 2, WcStatus.REM_ACCESS_ERR);
        assertArrayEquals(before, targetBytes());
        target.close(); // no window bound any more: ibv_dereg_mr succeeds
        assertFalse(target.deregistrationFailed());
    }

    /**
     * rxe checks a window's accesses against its region's range, not the window's (Linux 6.1 and 6.12,
     * {@code check_rkey} in rxe_resp.c calls {@code mr_check_range} on the window's region): a window reaches the
     * whole region it is bound to. This pins the fact the RPC client's design rests on (windows are bound only to
     * regions no larger than what the server may touch); a kernel that enforces the window's range fails here.
     */
    @Test
    void onRxeAWindowReachesTheWholeRegionItIsBoundTo(RdmaTestDevice device) throws RdmaException {
        open(device, SendPathUnderTest.POST_SEND_ON_EXTENDED_QP);
        assertTrue(
                pair.ctxA.attributes().memoryWindowDefect().orElseThrow().contains("check_rkey"),
                "the library names the defect");
        try (MemoryWindow mw = pair.pdA.allocateMemoryWindow()) {
            int key = bindMiddlePage(mw, Set.of(Access.REMOTE_WRITE), 1);
            byte[] before = targetBytes();
            peerWrites(target.address() + 2 * PAGE + 64, key, 2); // the third page: outside the window
            pair.expectSuccess(pair.cqB, 2, WcOpcode.RDMA_WRITE);
            assertArrayEquals(expectedAfterWriteAt(before, 2 * PAGE + 64), targetBytes());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(SendPathUnderTest.class)
    void misuseIsRefusedBeforeAnythingIsPosted(SendPathUnderTest path, RdmaTestDevice device) throws RdmaException {
        open(device, path);
        try (MemoryWindow mw = pair.pdA.allocateMemoryWindow();
                MemoryWindow other = pair.pdA.allocateMemoryWindow();
                MemoryRegion remoteRights = pair.pdA.allocate(PAGE, Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                MemoryRegion readOnly = pair.pdA.allocate(PAGE, Set.of(Access.MW_BIND))) {
            Set<Access> write = Set.of(Access.REMOTE_WRITE);
            assertThrows(
                    IllegalStateException.class,
                    () -> pair.a.postInvalidate(1, mw, SendFlags.SIGNALED),
                    "a window never bound");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> pair.a.postBindMemoryWindow(
                            1, mw, mw.nextRkey(), remoteRights, 0, 64, write, SendFlags.SIGNALED),
                    "a region without MW_BIND (C10-73)");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> pair.a.postBindMemoryWindow(1, mw, mw.nextRkey(), readOnly, 0, 64, write, SendFlags.SIGNALED),
                    "writable window, region without LOCAL_WRITE");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> pair.a.postBindMemoryWindow(
                            1, mw, mw.nextRkey(), target, 0, 64, Set.of(Access.LOCAL_WRITE), SendFlags.SIGNALED),
                    "local rights");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> pair.a.postBindMemoryWindow(
                            1, mw, other.nextRkey(), target, 0, 64, write, SendFlags.SIGNALED),
                    "another window's key");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> pair.a.postBindMemoryWindow(1, mw, mw.nextRkey(), target, 0, 0, write, SendFlags.SIGNALED),
                    "an empty range");
            assertThrows(
                    IndexOutOfBoundsException.class,
                    () -> pair.a.postBindMemoryWindow(
                            1, mw, mw.nextRkey(), target, 2 * PAGE, 2 * PAGE, write, SendFlags.SIGNALED),
                    "beyond the region");
            try (MemoryRegion peers = pair.pdB.allocate(PAGE, BIND_ONLY)) {
                assertThrows(
                        IllegalArgumentException.class,
                        () -> pair.a.postBindMemoryWindow(
                                1, mw, mw.nextRkey(), peers, 0, 64, write, SendFlags.SIGNALED),
                        "a region of another protection domain");
            }
            int key = bindMiddlePage(mw, write, 2);
            assertThrows(
                    IllegalStateException.class,
                    () -> pair.a.postBindMemoryWindow(3, mw, mw.nextRkey(), target, 0, 64, write, SendFlags.SIGNALED),
                    "a bound window (o10-37.2.30)");
            assertEquals(key, mw.rkey(), "a refused bind changes no key");
            // nothing was posted by the refusals: the queue pair still works
            byte[] before = targetBytes();
            peerWrites(target.address() + PAGE, key, 4);
            pair.expectSuccess(pair.cqB, 4, WcOpcode.RDMA_WRITE);
            assertArrayEquals(expectedAfterWriteAt(before, PAGE), targetBytes());
            pair.a.postInvalidate(5, mw, SendFlags.SIGNALED);
            pair.expectSuccess(pair.cqA, 5, WcOpcode.LOCAL_INV);
        }
    }
}
