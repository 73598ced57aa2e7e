package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.rpcrdma.memory.FakeRegistrar;
import org.panamardma.rpcrdma.memory.FakeWindows;
import org.panamardma.rpcrdma.memory.MemoryWindows;
import org.panamardma.rpcrdma.memory.Slot;
import org.panamardma.verbs.Access;

/**
 * The client's per-call chunk path ({@link CallChunks} over {@link ChunkMemory}, as {@code RpcRdmaClient} uses it)
 * with the calls {@link ChunkPlanner} makes of NFS-like WRITE, READ and Long Calls, in both exposure modes, asking
 * of every advertised segment what a server holding its handle could touch ({@link FakeRegistrar#reaches},
 * {@link FakeWindows#reaches}, the latter with rxe's window semantics): exactly the segment with its one right
 * (with windows on pool memory: nothing beyond its pool buffer), only until the call's chunks are revoked.
 */
class CallChunksTest {
    private static final int CALLS = 1000;
    private static final int DATA = 64 * 1024;

    private final FakeRegistrar registrar = new FakeRegistrar();
    private final FakeWindows windows = new FakeWindows(registrar);
    private final ChunkPlanner planner = new ChunkPlanner(4096, 4096, 1024, 1024, false);
    private final ChunkPlanner alwaysReply = new ChunkPlanner(4096, 4096, 1024, 1024, true);

    private ChunkMemory memory(ChunkExposure mode, long poolBytes, long cacheBytes) {
        MemoryWindows w = mode == ChunkExposure.MEMORY_WINDOWS ? new MemoryWindows("test client", windows) : null;
        return new ChunkMemory(
                "test client",
                registrar,
                w,
                RegisteredBufferPool.DEFAULT_CLASSES,
                RegisteredBufferPool.DEFAULT_SLAB_BYTES,
                poolBytes,
                cacheBytes);
    }

    private boolean reaches(RdmaSegment s, long offsetFrom, long length, Access right) {
        return reaches(s.handle(), s.offset() + offsetFrom, length, right);
    }

    private boolean reaches(int rkey, long address, long length, Access right) {
        return registrar.reaches(rkey, address, length, right) || windows.reaches(rkey, address, length, right);
    }

    /**
     * The server's view of one advertised segment during its call: the whole segment with the chunk's right, not
     * the other right, not a byte before it; not a byte past it where it is caller memory, not past its pool buffer
     * where it is pool memory.
     */
    private void assertExactlyExposed(RdmaSegment s, Access right, ChunkMemory memory) {
        Access other = right == Access.REMOTE_READ ? Access.REMOTE_WRITE : Access.REMOTE_READ;
        assertTrue(reaches(s, 0, s.length(), right), "the server may " + right + " the segment");
        assertFalse(reaches(s, 0, 1, other), "and nothing else: not " + other);
        assertFalse(reaches(s, -1, 1, right), "not the byte before it");
        Slot slot = slotOf(memory, s.offset());
        long end = slot == null ? s.offset() + s.length() : slot.buffer().address() + slot.size();
        assertFalse(
                reaches(s.handle(), end, 1, right),
                "not a byte past " + (slot == null ? "the segment" : "its pool buffer"));
        assertFalse(reaches(s.handle(), end, 4096, right), "nor the neighbour after it");
    }

    /** The pool buffer {@code address} lies in, or null. */
    private static Slot slotOf(ChunkMemory memory, long address) {
        return memory.buffers.pool().slotAt(address);
    }

    /** One call the way RpcRdmaClient makes it: plan, build, (the server's turn), revoke, release. */
    private void call(
            ChunkMemory memory,
            ChunkPlanner p,
            MemorySegment writeData,
            ReplyExpectation expectation,
            CallPlan.Kind expectedKind)
            throws Exception {
        CallPlan plan = p.plan(ChunkPlannerTest.CALL, ChunkPlannerTest.writeArgs(writeData), expectation);
        assertEquals(expectedKind, plan.kind());
        CallChunks chunks = new CallChunks(memory);
        ChunkLists lists = chunks.build(plan, expectation);
        List<RdmaSegment> advertised = new ArrayList<>();
        for (ReadSegment r : lists.readList()) {
            assertExactlyExposed(r.target(), Access.REMOTE_READ, memory);
            advertised.add(r.target());
        }
        for (WriteChunk w : lists.writeList()) {
            for (RdmaSegment s : w.segments()) {
                assertExactlyExposed(s, Access.REMOTE_WRITE, memory);
                advertised.add(s);
            }
        }
        lists.replyChunk()
                .ifPresent(w -> w.segments().forEach(s -> {
                    assertExactlyExposed(s, Access.REMOTE_WRITE, memory);
                    advertised.add(s);
                }));
        assertEquals(
                advertised.size(),
                new HashSet<>(advertised.stream().map(RdmaSegment::handle).toList()).size(),
                "a handle per segment");
        CompletableFuture<Void> revoked = chunks.revoke();
        assertTrue(revoked.isDone());
        for (RdmaSegment s : advertised) {
            assertFalse(
                    reaches(s, 0, 1, Access.REMOTE_READ) || reaches(s, 0, 1, Access.REMOTE_WRITE),
                    "revoked: the handle reaches nothing");
        }
        chunks.release();
        chunks.release(); // idempotent
        assertEquals(0, chunks.held());
    }

    private static List<Supplier<Object[]>> shapes(
            ChunkPlanner planner,
            ChunkPlanner alwaysReply,
            RegisteredBuffer poolData,
            RegisteredBuffer poolTarget,
            MemorySegment nativeData,
            MemorySegment nativeTarget) {
        MemorySegment heapData = ChunkPlannerTest.bytes(DATA);
        MemorySegment heapTarget = MemorySegment.ofArray(new byte[DATA]);
        MemorySegment small = ChunkPlannerTest.bytes(16);
        return List.of(
                // NFS WRITE: the data in a Read chunk, from the pool, from caller memory, from the heap
                () -> new Object[] {
                    planner,
                    poolData.segment().asSlice(0, DATA - 100),
                    ReplyExpectation.SMALL,
                    CallPlan.Kind.READ_CHUNKS
                },
                () -> new Object[] {planner, nativeData, ReplyExpectation.SMALL, CallPlan.Kind.READ_CHUNKS},
                () -> new Object[] {planner, heapData, ReplyExpectation.SMALL, CallPlan.Kind.READ_CHUNKS},
                // NFS READ: the data placed in a Write chunk, into the pool, caller memory, the heap
                () -> new Object[] {
                    planner, small, ReplyExpectation.placedInto(poolTarget.segment(), DATA + 100), CallPlan.Kind.INLINE
                },
                () -> new Object[] {
                    planner, small, ReplyExpectation.placedInto(nativeTarget, DATA + 100), CallPlan.Kind.INLINE
                },
                () -> new Object[] {
                    planner, small, ReplyExpectation.placedInto(heapTarget, DATA + 100), CallPlan.Kind.INLINE
                },
                // a large reply without placement: a Reply chunk; a Long Call: a position-zero Read chunk
                () -> new Object[] {planner, small, ReplyExpectation.upTo(200_000), CallPlan.Kind.INLINE},
                () -> new Object[] {
                    new ChunkPlanner(4096, 4096, Integer.MAX_VALUE, 1024, false),
                    heapData,
                    ReplyExpectation.SMALL,
                    CallPlan.Kind.POSITION_ZERO
                },
                // every call with a Reply chunk (alwaysReplyChunk), as NULL would go
                () -> new Object[] {alwaysReply, small, ReplyExpectation.SMALL, CallPlan.Kind.INLINE});
    }

    private void run(ChunkMemory memory, Object[] a) throws Exception {
        call(memory, (ChunkPlanner) a[0], (MemorySegment) a[1], (ReplyExpectation) a[2], (CallPlan.Kind) a[3]);
    }

    @Test
    void withWindowsSteadyStateCallsRegisterNothingAndEveryHandleIsANewKey() throws Exception {
        try (ChunkMemory memory = memory(
                        ChunkExposure.MEMORY_WINDOWS,
                        RpcRdmaClientOptions.DEFAULT_PINNED_BYTES,
                        RpcRdmaClientOptions.DEFAULT_PINNED_BYTES);
                Arena caller = Arena.ofShared()) {
            RegisteredBuffer poolData = memory.buffers.allocate(DATA);
            RegisteredBuffer poolTarget = memory.buffers.allocate(DATA);
            List<Supplier<Object[]>> shapes =
                    shapes(planner, alwaysReply, poolData, poolTarget, caller.allocate(DATA), caller.allocate(DATA));
            for (Supplier<Object[]> shape : shapes) { // warm-up: each shape once
                run(memory, shape.get());
            }
            long registrations = memory.registrations();
            assertEquals(registrar.registrations.get(), registrations, "the client's counter counts every ibv_reg_mr");
            assertTrue(registrations > 0, "the warm-up registered pool buffers and the caller's segments");
            long windowsMade = memory.windowsAllocated();
            long binds = memory.windowBinds();
            for (int i = 0; i < CALLS; i++) {
                run(memory, shapes.get(i % shapes.size()).get());
            }
            assertEquals(registrations, memory.registrations(), "no registration in steady state");
            assertEquals(0, registrar.deregistrations.get(), "and no deregistration");
            assertEquals(windowsMade, memory.windowsAllocated(), "windows are reused");
            assertTrue(memory.windowBinds() - binds >= CALLS, "a bind per chunk per call");
            assertEquals(0, windows.boundCount(), "every window is free between calls");
            assertTrue(
                    registrar.live.values().stream()
                            .noneMatch(l -> l.access().contains(Access.REMOTE_READ)
                                    || l.access().contains(Access.REMOTE_WRITE)),
                    "no registration has a remote right of its own");
            assertEquals(2, memory.buffers.leased(), "every buffer the calls leased went back");
            poolData.release();
            poolTarget.release();
        }
        assertTrue(registrar.live.isEmpty(), "closing the client's chunk memory deregisters everything");
    }

    @Test
    void withPerCallRegistrationEachChunkIsRegisteredForItsCallAndGoneAfter() throws Exception {
        try (ChunkMemory memory = memory(
                        ChunkExposure.PER_CALL_REGISTRATION,
                        RpcRdmaClientOptions.DEFAULT_PINNED_BYTES,
                        RpcRdmaClientOptions.DEFAULT_PINNED_BYTES);
                Arena caller = Arena.ofShared()) {
            RegisteredBuffer poolData = memory.buffers.allocate(DATA);
            RegisteredBuffer poolTarget = memory.buffers.allocate(DATA);
            List<Supplier<Object[]>> shapes =
                    shapes(planner, alwaysReply, poolData, poolTarget, caller.allocate(DATA), caller.allocate(DATA));
            for (int i = 0; i < CALLS; i++) {
                run(memory, shapes.get(i % shapes.size()).get());
                assertTrue(registrar.live.isEmpty(), "nothing registered between calls");
            }
            assertEquals(memory.registrations(), memory.deregistrations());
            assertEquals(CALLS, memory.registrations(), "one chunk per call of these shapes, one registration each");
            assertEquals(0, memory.windowBinds());
            assertEquals(2, memory.buffers.leased());
            poolData.release();
            poolTarget.release();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"MEMORY_WINDOWS", "PER_CALL_REGISTRATION"})
    void readDataIsTakenFromTheBounceOnlyAfterRevocationAndWriteDataIsCopiedOutOfTheHeap(ChunkExposure mode)
            throws Exception {
        try (ChunkMemory memory = memory(mode, 1 << 20, 1 << 20)) {
            MemorySegment heapData = ChunkPlannerTest.bytes(DATA);
            CallPlan plan =
                    planner.plan(ChunkPlannerTest.CALL, ChunkPlannerTest.writeArgs(heapData), ReplyExpectation.SMALL);
            CallChunks chunks = new CallChunks(memory);
            RdmaSegment read = chunks.build(plan, ReplyExpectation.SMALL)
                    .readList()
                    .getFirst()
                    .target();
            Slot slot = slotOf(memory, read.offset());
            MemorySegment exposed =
                    slot.buffer().asSlice(read.offset() - slot.buffer().address(), read.length());
            assertEquals(-1, exposed.mismatch(heapData), "the server reads the heap data's copy, in a pool buffer");
            var _ = chunks.revoke();
            chunks.release();

            MemorySegment heapTarget = MemorySegment.ofArray(new byte[DATA]);
            ReplyExpectation expectation = ReplyExpectation.placedInto(heapTarget, DATA + 100);
            CallChunks reading = new CallChunks(memory);
            reading.build(
                    planner.plan(
                            ChunkPlannerTest.CALL, ChunkPlannerTest.writeArgs(ChunkPlannerTest.bytes(8)), expectation),
                    expectation);
            MemorySegment bounce = reading.bounces.getFirst();
            assertNotNull(bounce);
            assertTrue(bounce.isNative());
            assertNull(reading.replyChunk, "a Write list and no Reply chunk, as Linux xprtrdma");
            assertThrows(IllegalStateException.class, reading::release, "no release before the revocation");
            var _ = reading.revoke();
            reading.release();
        }
    }

    @Test
    void theMemoryOfACallWhoseInvalidationIsPendingStaysOutOfThePoolUntilItCompletes() throws Exception {
        try (ChunkMemory memory = memory(ChunkExposure.MEMORY_WINDOWS, 1 << 20, 1 << 20);
                Arena caller = Arena.ofShared()) {
            MemorySegment target = caller.allocate(DATA);
            CallPlan plan = alwaysReply.plan(
                    ChunkPlannerTest.CALL,
                    ChunkPlannerTest.writeArgs(caller.allocate(DATA)),
                    ReplyExpectation.placedInto(target, 100));
            CallChunks chunks = new CallChunks(memory);
            ChunkLists lists = chunks.build(plan, ReplyExpectation.placedInto(target, 100));
            RdmaSegment reply = lists.replyChunk().orElseThrow().segments().getFirst();
            assertEquals(1, memory.buffers.leased(), "the Reply chunk's buffer");
            windows.holdInvalidations = true;
            CompletableFuture<Void> revoked = chunks.revoke();
            assertFalse(revoked.isDone(), "LOCAL_INV posted, not yet completed");
            assertTrue(reaches(reply, 0, reply.length(), Access.REMOTE_WRITE), "the server may still write it");
            assertThrows(IllegalStateException.class, chunks::release);
            assertEquals(1, memory.buffers.leased(), "so the buffer is not handed to another call");
            windows.completeInvalidations();
            assertTrue(revoked.isDone());
            assertFalse(reaches(reply, 0, 1, Access.REMOTE_WRITE));
            chunks.release();
            assertEquals(0, memory.buffers.leased());
            assertEquals(2, windows.invalidations.get(), "one LOCAL_INV per window: the Read chunk's and the Reply's");
        }
    }

    @Test
    void aWindowWhoseInvalidationFailsIsDeallocatedWhichRevokesItAllTheSame() throws Exception {
        try (ChunkMemory memory = memory(ChunkExposure.MEMORY_WINDOWS, 1 << 20, 1 << 20)) {
            CallPlan plan = alwaysReply.plan(
                    ChunkPlannerTest.CALL,
                    ChunkPlannerTest.writeArgs(ChunkPlannerTest.bytes(8)),
                    ReplyExpectation.SMALL);
            CallChunks chunks = new CallChunks(memory);
            RdmaSegment reply = chunks.build(plan, ReplyExpectation.SMALL)
                    .replyChunk()
                    .orElseThrow()
                    .segments()
                    .getFirst();
            windows.failInvalidations = true; // the queue pair is in error: LOCAL_INV flushed
            assertTrue(chunks.revoke().isDone());
            assertFalse(reaches(reply, 0, 1, Access.REMOTE_WRITE));
            assertTrue(windows.all.getFirst().isClosed(), "ibv_dealloc_mw instead");
            chunks.release();
            assertEquals(0, memory.buffers.leased());
        }
    }

    @Test
    void aWindowTheServerInvalidatedIsNotInvalidatedAgain() throws Exception {
        try (ChunkMemory memory = memory(ChunkExposure.MEMORY_WINDOWS, 1 << 20, 1 << 20)) {
            CallPlan plan = alwaysReply.plan(
                    ChunkPlannerTest.CALL,
                    ChunkPlannerTest.writeArgs(ChunkPlannerTest.bytes(8)),
                    ReplyExpectation.SMALL);
            CallChunks chunks = new CallChunks(memory);
            RdmaSegment reply = chunks.build(plan, ReplyExpectation.SMALL)
                    .replyChunk()
                    .orElseThrow()
                    .segments()
                    .getFirst();
            memory.invalidatedByPeer(0x1234); // a key of none of ours: nothing happens
            assertTrue(reaches(reply, 0, reply.length(), Access.REMOTE_WRITE));
            memory.invalidatedByPeer(reply.handle()); // the server's Send With Invalidate
            assertFalse(reaches(reply, 0, 1, Access.REMOTE_WRITE));
            assertTrue(chunks.revoke().isDone());
            assertEquals(0, windows.invalidations.get(), "no LOCAL_INV of a free window (FakeWindows would fail)");
            chunks.release();
            assertEquals(0, memory.buffers.leased());
            // the window is free and reused under its next key
            CallChunks next = new CallChunks(memory);
            RdmaSegment again = next.build(plan, ReplyExpectation.SMALL)
                    .replyChunk()
                    .orElseThrow()
                    .segments()
                    .getFirst();
            assertEquals(1, memory.windowsAllocated());
            assertEquals(reply.handle() + 1, again.handle(), "the key byte bumped");
            var _ = next.revoke();
            next.release();
        }
    }

    @Test
    void lostConnectionRevokesEveryWindowAtOnceEvenWithInvalidationsStuck() throws Exception {
        try (ChunkMemory memory = memory(ChunkExposure.MEMORY_WINDOWS, 1 << 20, 1 << 20)) {
            CallPlan plan = alwaysReply.plan(
                    ChunkPlannerTest.CALL,
                    ChunkPlannerTest.writeArgs(ChunkPlannerTest.bytes(8)),
                    ReplyExpectation.SMALL);
            CallChunks chunks = new CallChunks(memory);
            RdmaSegment reply = chunks.build(plan, ReplyExpectation.SMALL)
                    .replyChunk()
                    .orElseThrow()
                    .segments()
                    .getFirst();
            windows.holdInvalidations = true;
            CompletableFuture<Void> revoked = chunks.revoke();
            assertFalse(revoked.isDone());
            memory.revokeAllWindows(); // ibv_dealloc_mw of every window
            assertTrue(revoked.isDone());
            assertFalse(reaches(reply, 0, 1, Access.REMOTE_WRITE));
            chunks.release();
            assertEquals(0, memory.buffers.leased());
            assertThrows(
                    IllegalStateException.class,
                    () -> new CallChunks(memory).build(plan, ReplyExpectation.SMALL),
                    "no window is bound after the loss");
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"MEMORY_WINDOWS", "PER_CALL_REGISTRATION"})
    void withThePoolExhaustedACallExposesMemoryOfItsOwnAndFreesItAfter(ChunkExposure mode) throws Exception {
        try (ChunkMemory memory = memory(mode, 0, 0);
                Arena caller = Arena.ofShared()) {
            MemorySegment data = caller.allocate(DATA);
            for (int i = 0; i < 10; i++) {
                call(memory, alwaysReply, data, ReplyExpectation.SMALL, CallPlan.Kind.READ_CHUNKS);
            }
            assertEquals(20, memory.registrations(), "a Read chunk and a Reply chunk per call, each registered");
            assertEquals(20, memory.deregistrations());
            assertTrue(registrar.live.isEmpty(), "each call's own registrations went with it");
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"MEMORY_WINDOWS", "PER_CALL_REGISTRATION"})
    void aCallGivenAReleasedPoolBufferFailsAndHoldsNothing(ChunkExposure mode) throws Exception {
        try (ChunkMemory memory = memory(mode, 1 << 20, 1 << 20)) {
            RegisteredBuffer b = memory.buffers.allocate(DATA);
            MemorySegment stale = b.segment();
            b.release();
            CallPlan plan =
                    planner.plan(ChunkPlannerTest.CALL, ChunkPlannerTest.writeArgs(stale), ReplyExpectation.SMALL);
            CallChunks chunks = new CallChunks(memory);
            IllegalStateException e =
                    assertThrows(IllegalStateException.class, () -> chunks.build(plan, ReplyExpectation.SMALL));
            assertTrue(e.getMessage().contains("released pool buffer"), e.getMessage());
            var _ = chunks.revoke(); // what RpcRdmaClient.call does on a failure
            chunks.release();
            assertEquals(0, memory.buffers.leased());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"MEMORY_WINDOWS", "PER_CALL_REGISTRATION"})
    void aFailedRegistrationMidCallLeavesNothingExposed(ChunkExposure mode) throws Exception {
        try (ChunkMemory memory = memory(mode, 1 << 20, 1 << 20);
                Arena caller = Arena.ofShared()) {
            MemorySegment data = caller.allocate(DATA);
            ReplyExpectation expectation = ReplyExpectation.placedInto(caller.allocate(DATA), DATA + 100);
            CallPlan plan = planner.plan(ChunkPlannerTest.CALL, ChunkPlannerTest.writeArgs(data), expectation);
            CallChunks chunks = new CallChunks(memory);
            long before = registrar.registrations.get();
            // the Read chunk is exposed, the Write chunk's registration fails
            registrar.failAfter(1);
            assertThrows(org.panamardma.verbs.RdmaException.class, () -> chunks.build(plan, expectation));
            assertEquals(before + 1, registrar.registrations.get());
            List<Integer> keys = chunks.rkeys();
            assertEquals(1, keys.size());
            var _ = chunks.revoke();
            chunks.release();
            assertFalse(reaches(keys.getFirst(), data.address(), 1, Access.REMOTE_READ));
            assertEquals(0, windows.boundCount());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"MEMORY_WINDOWS", "PER_CALL_REGISTRATION"})
    void concurrentCallsOverSharedMemoryEachGetTheirOwnHandles(ChunkExposure mode) throws Exception {
        try (ChunkMemory memory = memory(mode, 8 << 20, 8 << 20);
                Arena caller = Arena.ofShared()) {
            MemorySegment data = caller.allocate(DATA);
            data.fill((byte) 7);
            call(memory, alwaysReply, data, ReplyExpectation.SMALL, CallPlan.Kind.READ_CHUNKS);
            long registrations = memory.registrations();
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < CALLS / 4; i++) {
                            call(memory, alwaysReply, data, ReplyExpectation.SMALL, CallPlan.Kind.READ_CHUNKS);
                        }
                    } catch (Throwable x) {
                        failures.add(x);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(List.of(), failures);
            if (mode == ChunkExposure.MEMORY_WINDOWS) {
                assertTrue(
                        memory.registrations() - registrations <= 4 * 2,
                        "at most a race per thread for a first registration of the segment and of a buffer");
            } else {
                assertEquals(registrations + 2L * CALLS, memory.registrations());
            }
            assertEquals((byte) 7, data.get(ValueLayout.JAVA_BYTE, DATA - 1));
            assertEquals(0, windows.boundCount());
            assertEquals(
                    Set.of(),
                    Set.copyOf(new ArrayList<>(registrar.live.values())
                            .stream()
                                    .filter(l -> l.access().contains(Access.REMOTE_READ)
                                            || l.access().contains(Access.REMOTE_WRITE))
                                    .toList()),
                    "no remote right left anywhere");
        }
    }
}
