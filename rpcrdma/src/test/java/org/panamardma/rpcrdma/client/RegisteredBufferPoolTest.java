package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.rpcrdma.memory.FakeRegistrar;
import org.panamardma.rpcrdma.memory.Registration;
import org.panamardma.rpcrdma.memory.Slot;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.RdmaException;

class RegisteredBufferPoolTest {
    private final FakeRegistrar registrar = new FakeRegistrar();

    private RegisteredBufferPool pool(long maxPinned) {
        return new RegisteredBufferPool("test pool", registrar, new long[] {4096, 65536}, 65536, maxPinned);
    }

    @Test
    void allocatesOneSlabPerClassThenServesEveryLeaseFromItRegisteringNothing() throws Exception {
        try (RegisteredBufferPool pool = pool(1 << 20)) {
            for (int round = 0; round < 100; round++) {
                RegisteredBuffer small = pool.allocate(100);
                RegisteredBuffer large = pool.allocate(5000);
                assertEquals(100, small.segment().byteSize());
                assertEquals(4096, small.capacity());
                assertEquals(65536, large.capacity());
                small.release();
                large.close();
            }
            assertEquals(0, registrar.registrations.get(), "a lease exposes nothing: no registration");
            assertEquals(0, pool.registrations());
            assertEquals(2 * 65536, pool.pinnedBytes(), "one slab for 4 KiB buffers, one for 64 KiB");
            assertEquals(0, pool.leased());
        }
    }

    @Test
    void aBufferGetsARegionOfItsOwnWithoutRemoteRightsOnItsFirstWindowAndKeepsIt() throws Exception {
        try (RegisteredBufferPool pool = pool(1 << 20)) {
            RegisteredBuffer a = pool.allocate(100);
            RegisteredBuffer b = pool.allocate(100);
            Registration ra = pool.pool().region(a.lease.slot());
            assertSame(ra, pool.pool().region(a.lease.slot()), "registered once");
            Registration rb = pool.pool().region(b.lease.slot());
            assertEquals(2, pool.registrations());
            FakeRegistrar.Live live = registrar.live.get(ra.rkey());
            assertEquals(Set.of(Access.LOCAL_WRITE, Access.MW_BIND), live.access(), "no remote right of its own");
            assertEquals(4096, live.segment().byteSize(), "exactly the buffer: a window never reaches a neighbour");
            assertEquals(a.lease.slot().buffer().address(), live.segment().address());
            assertEquals(4096, Math.abs(ra.segment().address() - rb.segment().address()), "two neighbours");
            a.release();
            RegisteredBuffer again = pool.allocate(100);
            assertSame(ra, pool.pool().region(again.lease.slot()), "the buffer's region outlives its lease");
            again.release();
            b.release();
        }
        assertEquals(2, registrar.deregistrations.get(), "close deregisters every buffer's region");
        assertTrue(registrar.live.isEmpty());
    }

    @Test
    void buffersOfASlabAreDistinctAndDoNotOverlap() throws Exception {
        try (RegisteredBufferPool pool = pool(65536)) {
            List<RegisteredBuffer> all = new ArrayList<>();
            Set<Long> addresses = new HashSet<>();
            for (int i = 0; i < 16; i++) {
                RegisteredBuffer b = pool.allocate(4096);
                all.add(b);
                assertTrue(addresses.add(b.segment().address()));
                b.segment().fill((byte) i);
            }
            for (int i = 0; i < 16; i++) {
                MemorySegment s = all.get(i).segment();
                assertEquals((byte) i, s.get(ValueLayout.JAVA_BYTE, 0));
                assertEquals((byte) i, s.get(ValueLayout.JAVA_BYTE, 4095));
            }
            assertEquals(65536, pool.pinnedBytes(), "one slab");
        }
    }

    @Test
    void neverPinsMoreThanItsMaximumAndFailsClearlyWhenExhausted() throws Exception {
        try (RegisteredBufferPool pool = pool(2 * 4096)) {
            RegisteredBuffer a = pool.allocate(4096);
            RegisteredBuffer b = pool.allocate(4096);
            BufferPoolExhaustedException e = assertThrows(BufferPoolExhaustedException.class, () -> pool.allocate(10));
            assertTrue(e.getMessage().contains("2 buffers leased"), e.getMessage());
            assertTrue(e.getMessage().contains("at most 8192"), e.getMessage());
            assertThrows(
                    BufferPoolExhaustedException.class,
                    () -> pool.allocate(65536),
                    "a larger class may not grow past the maximum either");
            assertEquals(8192, pool.pinnedBytes());
            a.release();
            assertNotNull(pool.allocate(10));
            b.release();
        }
    }

    @Test
    void aWaitingAllocationGetsTheNextReleasedBufferOrTimesOut() throws Exception {
        try (RegisteredBufferPool pool = pool(4096)) {
            RegisteredBuffer only = pool.allocate(4096);
            long start = System.nanoTime();
            assertThrows(BufferPoolExhaustedException.class, () -> pool.allocate(4096, Duration.ofMillis(50)));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50), "waited until the deadline");
            CompletableFuture<RegisteredBuffer> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return pool.allocate(4096, Duration.ofSeconds(30));
                } catch (RdmaException | InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(20);
            long address = only.segment().address();
            only.release();
            RegisteredBuffer next = waiting.get(30, TimeUnit.SECONDS);
            assertEquals(address, next.segment().address(), "the released buffer went to the waiter");
            next.release();
        }
    }

    @Test
    void refusesSizesWithoutAClass() {
        try (RegisteredBufferPool pool = pool(1 << 20)) {
            assertThrows(IllegalArgumentException.class, () -> pool.allocate(0));
            assertThrows(IllegalArgumentException.class, () -> pool.allocate(-1));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.allocate(65537));
            assertTrue(e.getMessage().contains("largest buffer class (65536)"), e.getMessage());
        }
        assertThrows(
                IllegalArgumentException.class,
                () -> new RegisteredBufferPool("p", registrar, new long[] {8192, 4096}, 65536, 0));
        assertThrows(
                IllegalArgumentException.class,
                () -> new RegisteredBufferPool("p", registrar, new long[] {100}, 65536, 0));
        assertThrows(
                IllegalArgumentException.class,
                () -> new RegisteredBufferPool("p", registrar, new long[] {4096}, 65536, -1));
    }

    @Test
    void doubleReleaseAndUseAfterReleaseThrowAndLeaveThePoolIntact() throws Exception {
        try (RegisteredBufferPool pool = pool(4096)) {
            RegisteredBuffer b = pool.allocate(64);
            MemorySegment kept = b.segment();
            b.release();
            assertThrows(IllegalStateException.class, b::release);
            assertThrows(IllegalStateException.class, b::segment);
            IllegalStateException e =
                    assertThrows(IllegalStateException.class, () -> pool.pool().acquireUse(kept));
            assertTrue(e.getMessage().contains("released pool buffer"), e.getMessage());
            // the double release did not put the buffer in the free list twice: one lease, then exhaustion
            RegisteredBuffer again = pool.allocate(64);
            assertThrows(BufferPoolExhaustedException.class, () -> pool.allocate(64));
            assertEquals(1, pool.leased());
            again.release();
            assertEquals(0, pool.leased());
        }
    }

    @Test
    void recognisesItsOwnMemoryOnlyAndRefusesASegmentSpanningTwoBuffers() throws Exception {
        try (RegisteredBufferPool pool = pool(65536);
                Arena arena = Arena.ofConfined()) {
            RegisteredBuffer b = pool.allocate(4096);
            Slot slot = pool.pool().acquireUse(b.segment().asSlice(100, 200));
            assertNotNull(slot);
            assertEquals(b.segment().address(), slot.buffer().address());
            pool.pool().endUse(slot);
            assertNull(pool.pool().acquireUse(arena.allocate(64)), "foreign native memory");
            assertNull(pool.pool().acquireUse(MemorySegment.ofArray(new byte[64])), "heap memory");
            RegisteredBuffer neighbour = pool.allocate(4096);
            MemorySegment whole = slot.slabMemory();
            MemorySegment spanning = whole.asSlice(4000, 200);
            assertThrows(IllegalArgumentException.class, () -> pool.pool().acquireUse(spanning));
            b.release();
            neighbour.release();
            assertThrows(IllegalStateException.class, () -> pool.pool().endUse(slot), "more ends than uses");
        }
    }

    @Test
    void aBufferReleasedWhileACallUsesItReturnsOnlyWhenTheCallLetsGo() throws Exception {
        try (RegisteredBufferPool pool = pool(4096)) {
            RegisteredBuffer b = pool.allocate(4096);
            Slot slot = pool.pool().acquireUse(b.segment());
            b.release();
            assertThrows(
                    BufferPoolExhaustedException.class,
                    () -> pool.allocate(4096),
                    "the server may still access it: not handed out");
            assertThrows(
                    IllegalStateException.class,
                    () -> pool.pool().acquireUse(slot.slabMemory().asSlice(0, 4096)),
                    "released: no new call may use it");
            pool.pool().endUse(slot);
            RegisteredBuffer next = pool.allocate(4096);
            assertEquals(0, next.segment().address() - slot.slabMemory().address());
            next.release();
        }
    }

    @Test
    void aFailedRegionRegistrationLeavesTheBufferUsableAndIsTriedAgain() throws Exception {
        try (RegisteredBufferPool pool = pool(65536)) {
            RegisteredBuffer b = pool.allocate(4096);
            registrar.failNext = true;
            RdmaException e =
                    assertThrows(RdmaException.class, () -> pool.pool().region(b.lease.slot()));
            assertTrue(e.getMessage().contains("ibv_reg_mr"), e.getMessage());
            assertEquals(0, pool.registrations());
            assertNotNull(pool.pool().region(b.lease.slot()));
            assertEquals(1, pool.registrations());
            b.release();
        }
    }

    @Test
    void afterCloseLeasesAreUnusableWithoutCrashing() throws Exception {
        RegisteredBufferPool pool = pool(65536);
        RegisteredBuffer b = pool.allocate(64);
        MemorySegment raw = b.segment();
        pool.pool().region(b.lease.slot());
        pool.close();
        assertThrows(IllegalStateException.class, b::segment);
        assertThrows(
                IllegalStateException.class,
                () -> raw.get(ValueLayout.JAVA_BYTE, 0),
                "the slab's memory is freed after its buffers' regions: FFM refuses the access");
        assertThrows(IllegalStateException.class, () -> pool.allocate(64));
        b.release();
        assertThrows(IllegalStateException.class, b::release);
        pool.close();
        assertEquals(1, registrar.deregistrations.get());
    }

    @Test
    void concurrentLeasesNeverShareABuffer() throws Exception {
        try (RegisteredBufferPool pool = pool(8 * 4096)) {
            Set<Long> inUse = java.util.concurrent.ConcurrentHashMap.newKeySet();
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                workers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 2000; i++) {
                        try {
                            RegisteredBuffer b = pool.allocate(4096, Duration.ofSeconds(10));
                            long a = b.segment().address();
                            if (!inUse.add(a)) {
                                throw new AssertionError("buffer 0x" + Long.toHexString(a) + " leased twice");
                            }
                            inUse.remove(a);
                            b.release();
                        } catch (RdmaException | InterruptedException e) {
                            throw new RuntimeException(e);
                        }
                    }
                }));
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertEquals(0, pool.leased());
            assertEquals(8 * 4096, pool.pinnedBytes());
        }
    }
}
