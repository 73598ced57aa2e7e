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
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.verbs.Access;

/**
 * The client's per-call chunk path ({@link CallChunks} over {@link ChunkMemory}, as {@code RpcRdmaClient.Call}
 * uses it) with the calls {@link ChunkPlanner} makes of NFS-like WRITE, READ and Long Calls: after a warm-up, calls
 * make no registration and no deregistration, and every chunk they advertise is covered by a live registration
 * with the rights the server needs.
 */
class CallChunksTest {
    private static final int CALLS = 1000;
    private static final int DATA = 64 * 1024;

    private final FakeRegistrar registrar = new FakeRegistrar();
    private final ChunkPlanner planner = new ChunkPlanner(4096, 4096, 1024, 1024, false);
    private final ChunkPlanner alwaysReply = new ChunkPlanner(4096, 4096, 1024, 1024, true);

    private ChunkMemory memory(long poolBytes, long cacheBytes) {
        return new ChunkMemory("test client", registrar, RegisteredBufferPool.DEFAULT_CLASSES,
                RegisteredBufferPool.DEFAULT_SLAB_BYTES, poolBytes, cacheBytes);
    }

    /** One call the way RpcRdmaClient makes it: plan, build the chunks, (the server's turn), release. */
    private void call(ChunkMemory memory, ChunkPlanner p, MemorySegment writeData, ReplyExpectation expectation,
                      CallPlan.Kind expectedKind) throws Exception {
        CallPlan plan = p.plan(ChunkPlannerTest.CALL, ChunkPlannerTest.writeArgs(writeData), expectation);
        assertEquals(expectedKind, plan.kind());
        CallChunks chunks = new CallChunks(memory);
        ChunkLists lists = chunks.build(plan, expectation);
        for (ReadSegment r : lists.readList()) {
            FakeRegistrar.Live l = covering(r.target());
            assertTrue(l.access().contains(Access.REMOTE_READ), "a Read chunk the server may read");
        }
        for (WriteChunk w : lists.writeList()) {
            for (RdmaSegment s : w.segments()) {
                FakeRegistrar.Live l = covering(s);
                assertTrue(l.access().containsAll(Set.of(Access.REMOTE_WRITE, Access.LOCAL_WRITE)),
                        "a Write chunk the server may write");
            }
        }
        lists.replyChunk().ifPresent(w -> w.segments().forEach(s -> assertTrue(
                covering(s).access().contains(Access.REMOTE_WRITE), "a Reply chunk the server may write")));
        chunks.release();
        chunks.release(); // idempotent, as finish() may race a timeout
        assertEquals(0, chunks.held());
    }

    private FakeRegistrar.Live covering(RdmaSegment s) {
        return registrar.covering(s.handle(), s.offset(), s.length());
    }

    @Test
    void steadyStateCallsMakeNoRegistrationWhateverTheirMemory() throws Exception {
        try (ChunkMemory memory = memory(RpcRdmaClientOptions.DEFAULT_PINNED_BYTES,
                RpcRdmaClientOptions.DEFAULT_PINNED_BYTES); Arena caller = Arena.ofShared()) {
            RegisteredBuffer poolData = memory.pool.allocate(DATA);
            RegisteredBuffer poolTarget = memory.pool.allocate(DATA);
            MemorySegment nativeData = caller.allocate(DATA);
            MemorySegment nativeTarget = caller.allocate(DATA);
            MemorySegment heapData = ChunkPlannerTest.bytes(DATA);
            MemorySegment heapTarget = MemorySegment.ofArray(new byte[DATA]);
            MemorySegment small = ChunkPlannerTest.bytes(16);
            List<Supplier<Object[]>> shapes = List.of(
                    // NFS WRITE: the data in a Read chunk, from the pool, from caller memory, from the heap
                    () -> new Object[] {planner, poolData.segment(), ReplyExpectation.SMALL, CallPlan.Kind.READ_CHUNKS},
                    () -> new Object[] {planner, nativeData, ReplyExpectation.SMALL, CallPlan.Kind.READ_CHUNKS},
                    () -> new Object[] {planner, heapData, ReplyExpectation.SMALL, CallPlan.Kind.READ_CHUNKS},
                    // NFS READ: the data placed in a Write chunk, into the pool, caller memory, the heap
                    () -> new Object[] {planner, small, ReplyExpectation.placedInto(poolTarget.segment(), DATA + 100),
                            CallPlan.Kind.INLINE},
                    () -> new Object[] {planner, small, ReplyExpectation.placedInto(nativeTarget, DATA + 100),
                            CallPlan.Kind.INLINE},
                    () -> new Object[] {planner, small, ReplyExpectation.placedInto(heapTarget, DATA + 100),
                            CallPlan.Kind.INLINE},
                    // a large reply without placement: a Reply chunk; a Long Call: a position-zero Read chunk
                    () -> new Object[] {planner, small, ReplyExpectation.upTo(200_000), CallPlan.Kind.INLINE},
                    () -> new Object[] {new ChunkPlanner(4096, 4096, Integer.MAX_VALUE, 1024, false), heapData,
                            ReplyExpectation.SMALL, CallPlan.Kind.POSITION_ZERO},
                    // every call with a Reply chunk (alwaysReplyChunk), as NULL would go
                    () -> new Object[] {alwaysReply, small, ReplyExpectation.SMALL, CallPlan.Kind.INLINE});
            for (Supplier<Object[]> shape : shapes) { // warm-up: each shape once
                Object[] a = shape.get();
                call(memory, (ChunkPlanner) a[0], (MemorySegment) a[1], (ReplyExpectation) a[2], (CallPlan.Kind) a[3]);
            }
            long registrations = memory.registrations();
            long made = registrar.registrations.get();
            assertEquals(made, registrations, "the client's counter counts every ibv_reg_mr");
            assertTrue(registrations > 0, "the warm-up registered the pool's slabs and the caller's memory");
            for (int i = 0; i < CALLS; i++) {
                Object[] a = shapes.get(i % shapes.size()).get();
                call(memory, (ChunkPlanner) a[0], (MemorySegment) a[1], (ReplyExpectation) a[2], (CallPlan.Kind) a[3]);
            }
            assertEquals(registrations, memory.registrations(), "no registration in steady state");
            assertEquals(made, registrar.registrations.get());
            assertEquals(0, registrar.deregistrations.get(), "and no deregistration");
            assertEquals(2, memory.pool.leased(), "every buffer the calls leased went back");
            poolData.release();
            poolTarget.release();
        }
        assertTrue(registrar.live.isEmpty(), "closing the client's chunk memory deregisters everything");
    }

    @Test
    void readDataLandsInTheCallersTargetThroughTheBounceAndWriteDataIsCopiedOutOfTheHeap() throws Exception {
        try (ChunkMemory memory = memory(1 << 20, 1 << 20)) {
            MemorySegment heapData = ChunkPlannerTest.bytes(DATA);
            CallPlan plan = planner.plan(ChunkPlannerTest.CALL, ChunkPlannerTest.writeArgs(heapData),
                    ReplyExpectation.SMALL);
            CallChunks chunks = new CallChunks(memory);
            RdmaSegment read = chunks.build(plan, ReplyExpectation.SMALL).readList().getFirst().target();
            MemorySegment exposed = registrar.covering(read.handle(), read.offset(), read.length()).segment()
                    .asSlice(read.offset() - registrar.live.get(read.handle()).segment().address(), read.length());
            assertEquals(-1, exposed.mismatch(heapData), "the server reads the heap data's copy");
            chunks.release();

            MemorySegment heapTarget = MemorySegment.ofArray(new byte[DATA]);
            ReplyExpectation expectation = ReplyExpectation.placedInto(heapTarget, DATA + 100);
            CallChunks reading = new CallChunks(memory);
            reading.build(planner.plan(ChunkPlannerTest.CALL, ChunkPlannerTest.writeArgs(ChunkPlannerTest.bytes(8)),
                    expectation), expectation);
            MemorySegment bounce = reading.bounces.getFirst();
            assertNotNull(bounce);
            assertTrue(bounce.isNative());
            assertNull(reading.replyChunk, "a Write list and no Reply chunk, as Linux xprtrdma");
            reading.release();
        }
    }

    @Test
    void aTimedOutCallKeepsItsPoolBuffersUntilTheServerIsDoneAndDropsItsCallerRegistrationsAtOnce()
            throws Exception {
        try (ChunkMemory memory = memory(1 << 20, 1 << 20); Arena caller = Arena.ofShared()) {
            MemorySegment target = caller.allocate(DATA);
            // a READ whose reply needs a Reply chunk too: the planner then offers the Reply chunk only
            CallPlan plan = alwaysReply.plan(ChunkPlannerTest.CALL,
                    ChunkPlannerTest.writeArgs(caller.allocate(DATA)), ReplyExpectation.placedInto(target, 100));
            CallChunks chunks = new CallChunks(memory);
            ChunkLists lists = chunks.build(plan, ReplyExpectation.placedInto(target, 100));
            int callerRkey = lists.readList().getFirst().target().handle();
            int replyRkey = lists.replyChunk().orElseThrow().segments().getFirst().handle();
            assertEquals(1, memory.pool.leased(), "the Reply chunk's buffer");
            chunks.abandon();
            assertFalse(registrar.live.containsKey(callerRkey), "caller memory: deregistered at the timeout");
            assertEquals(1, memory.pool.leased(), "pool memory: held, the server may still write it");
            assertTrue(registrar.live.containsKey(replyRkey));
            chunks.releaseHeld(); // the late reply
            assertEquals(0, memory.pool.leased());
            chunks.release();
            assertEquals(0, memory.pool.leased(), "nothing released twice");

            // the late reply may be handled before the timeout has let go: the buffers go back all the same
            CallChunks raced = new CallChunks(memory);
            raced.build(plan, ReplyExpectation.placedInto(target, 100));
            raced.releaseHeld();
            raced.abandon();
            assertEquals(0, memory.pool.leased());
            assertEquals(0, raced.held());
        }
    }

    @Test
    void withThePoolExhaustedACallRegistersItsOwnMemoryAndDeregistersItAfter() throws Exception {
        try (ChunkMemory memory = memory(0, 0); Arena caller = Arena.ofShared()) {
            MemorySegment data = caller.allocate(DATA);
            long before = memory.registrations();
            for (int i = 0; i < 10; i++) {
                call(memory, alwaysReply, data, ReplyExpectation.SMALL, CallPlan.Kind.READ_CHUNKS);
            }
            assertEquals(before + 20, memory.registrations(), "a Read chunk and a Reply chunk per call");
            assertEquals(20, memory.deregistrations());
            assertTrue(registrar.live.isEmpty(), "each call's own registrations went with it");
        }
    }

    @Test
    void aCallGivenAReleasedPoolBufferFailsAndHoldsNothing() throws Exception {
        try (ChunkMemory memory = memory(1 << 20, 1 << 20)) {
            RegisteredBuffer b = memory.pool.allocate(DATA);
            MemorySegment stale = b.segment();
            b.release();
            CallPlan plan = planner.plan(ChunkPlannerTest.CALL, ChunkPlannerTest.writeArgs(stale),
                    ReplyExpectation.SMALL);
            CallChunks chunks = new CallChunks(memory);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> chunks.build(plan, ReplyExpectation.SMALL));
            assertTrue(e.getMessage().contains("released pool buffer"), e.getMessage());
            chunks.release(); // what RpcRdmaClient.call does on a failure
            assertEquals(0, memory.pool.leased());
        }
    }

    @Test
    void concurrentCallsOverSharedMemoryStayRegistrationFreeAfterWarmUp() throws Exception {
        try (ChunkMemory memory = memory(8 << 20, 8 << 20); Arena caller = Arena.ofShared()) {
            MemorySegment data = caller.allocate(DATA);
            data.fill((byte) 7);
            call(memory, alwaysReply, data, ReplyExpectation.SMALL, CallPlan.Kind.READ_CHUNKS);
            long registrations = memory.registrations();
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < CALLS; i++) {
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
            assertEquals(registrations, memory.registrations());
            assertEquals((byte) 7, data.get(ValueLayout.JAVA_BYTE, DATA - 1));
        }
    }
}
