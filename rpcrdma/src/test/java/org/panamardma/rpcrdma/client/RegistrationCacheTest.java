package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.rpcrdma.client.RegistrationCache.ChunkAccess;
import org.panamardma.rpcrdma.client.RegistrationCache.Entry;
import org.panamardma.verbs.Access;

class RegistrationCacheTest {
    private final FakeRegistrar registrar = new FakeRegistrar();

    @Test
    void theSameMemoryIsRegisteredOnceAndReusedWhileItsArenaLives() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment data = arena.allocate(8192);
            Entry first = cache.acquire(data, ChunkAccess.SOURCE);
            cache.release(first, false);
            for (int i = 0; i < 50; i++) {
                Entry e = cache.acquire(data, ChunkAccess.SOURCE);
                assertSame(first, e);
                cache.release(e, false);
            }
            assertEquals(1, registrar.registrations.get());
            assertEquals(50, cache.hits());
            assertEquals(Set.of(Access.REMOTE_READ), registrar.live.get(first.rkey()).access(), "least rights");
            Entry sink = cache.acquire(data, ChunkAccess.SINK);
            assertNotSame(first, sink, "other rights, another registration");
            assertEquals(Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE), registrar.live.get(sink.rkey()).access());
            Entry slice = cache.acquire(data.asSlice(100, 4096), ChunkAccess.SOURCE);
            assertSame(first, slice, "a slice of cached memory is served by its registration");
            cache.release(sink, false);
            cache.release(slice, false);
            assertEquals(2, registrar.registrations.get());
            assertEquals(2 * 8192, cache.cachedBytes());
        }
        cache.close();
        assertTrue(registrar.live.isEmpty(), "close deregisters what no call uses");
    }

    @Test
    void aClosedArenasRegistrationIsNeverReturnedEvenAtTheSameAddress() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        Arena first = Arena.ofConfined();
        MemorySegment a = first.allocate(4096);
        Entry old = cache.acquire(a, ChunkAccess.SINK);
        cache.release(old, false);
        first.close();
        // whatever address the next arena gets, its scope differs: the key cannot match
        try (Arena second = Arena.ofConfined()) {
            MemorySegment b = second.allocate(4096);
            Entry fresh = cache.acquire(b, ChunkAccess.SINK);
            assertNotSame(old, fresh);
            assertFalse(registrar.live.containsKey(old.rkey()),
                    "the miss swept the closed arena's entry and deregistered it");
            cache.release(fresh, false);
        }
        assertEquals(2, registrar.registrations.get());
        assertThrows(IllegalStateException.class, () -> cache.acquire(a, ChunkAccess.SINK),
                "memory of a closed arena is refused, never looked up");
    }

    @Test
    void sweepDropsClosedScopesAndForgetDropsOneScopeAtOnce() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        Arena gone = Arena.ofShared();
        Entry e1 = cache.acquire(gone.allocate(4096), ChunkAccess.SOURCE);
        cache.release(e1, false);
        Arena kept = Arena.ofShared();
        Entry e2 = cache.acquire(kept.allocate(4096), ChunkAccess.SOURCE);
        cache.release(e2, false);
        gone.close();
        assertEquals(1, cache.sweep(Integer.MAX_VALUE));
        assertEquals(1, cache.size());
        assertFalse(registrar.live.containsKey(e1.rkey()));
        assertEquals(1, cache.forget(kept.scope()));
        assertFalse(registrar.live.containsKey(e2.rkey()), "deregistered before the arena closes");
        kept.close();
        assertEquals(0, cache.size());
        assertEquals(0, cache.cachedBytes());
    }

    @Test
    void anEntryInUseIsNeitherEvictedNorDeregisteredWhenItsScopeCloses() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 8192);
        try (Arena arena = Arena.ofShared()) {
            Entry busy = cache.acquire(arena.allocate(8192), ChunkAccess.SINK);
            Entry other = cache.acquire(arena.allocate(4096), ChunkAccess.SINK);
            assertTrue(registrar.live.containsKey(busy.rkey()), "never evicted while in use");
            assertTrue(other.retired, "no room: the call got a registration of its own");
            cache.release(other, false);
            assertFalse(registrar.live.containsKey(other.rkey()), "its own registration went with the call");
            cache.release(busy, false);
            assertTrue(registrar.live.containsKey(busy.rkey()), "cached for the next call");
        }
        cache.sweep(Integer.MAX_VALUE);
        assertTrue(registrar.live.isEmpty());

        Arena closing = Arena.ofShared();
        Entry held = cache.acquire(closing.allocate(4096), ChunkAccess.SOURCE);
        closing.close(); // caller misuse during a call: the registration must outlive the call, not the arena
        cache.sweep(Integer.MAX_VALUE);
        assertTrue(registrar.live.containsKey(held.rkey()), "still in use by its call");
        assertEquals(0, cache.size(), "but never returned again");
        cache.release(held, false);
        assertFalse(registrar.live.containsKey(held.rkey()));
    }

    @Test
    void evictsTheLeastRecentlyUsedEntriesNoCallUsesToStayWithinItsBound() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 3 * 4096);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] s = new MemorySegment[4];
            Entry[] e = new Entry[4];
            for (int i = 0; i < 3; i++) {
                s[i] = arena.allocate(4096);
                e[i] = cache.acquire(s[i], ChunkAccess.SOURCE);
                cache.release(e[i], false);
            }
            cache.release(cache.acquire(s[0], ChunkAccess.SOURCE), false); // s[1] is now the eldest
            s[3] = arena.allocate(4096);
            e[3] = cache.acquire(s[3], ChunkAccess.SOURCE);
            cache.release(e[3], false);
            assertFalse(registrar.live.containsKey(e[1].rkey()), "the least recently used went");
            assertTrue(registrar.live.containsKey(e[0].rkey()));
            assertTrue(registrar.live.containsKey(e[2].rkey()));
            assertEquals(3 * 4096, cache.cachedBytes());
            assertTrue(cache.cachedBytes() <= cache.maxBytes());
        }
    }

    @Test
    void aTimedOutCallsMemoryIsDeregisteredOnceNoOtherCallUsesIt() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = arena.allocate(4096);
            Entry timedOut = cache.acquire(target, ChunkAccess.SINK);
            Entry concurrent = cache.acquire(target, ChunkAccess.SINK);
            assertSame(timedOut, concurrent);
            cache.release(timedOut, true);
            assertTrue(registrar.live.containsKey(timedOut.rkey()), "the other call is still in flight");
            Entry later = cache.acquire(target, ChunkAccess.SINK);
            assertNotSame(timedOut, later, "an invalidated registration is never reused");
            cache.release(concurrent, false);
            assertFalse(registrar.live.containsKey(timedOut.rkey()));
            cache.release(later, false);
            assertThrows(IllegalStateException.class, () -> cache.release(later, false), "released twice");
        }
    }

    @Test
    void refusesHeapAndEmptySegmentsAndWorksAfterAFailedRegistration() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        assertThrows(IllegalArgumentException.class,
                () -> cache.acquire(MemorySegment.ofArray(new byte[16]), ChunkAccess.SOURCE));
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class,
                    () -> cache.acquire(arena.allocate(16).asSlice(0, 0), ChunkAccess.SOURCE));
            MemorySegment s = arena.allocate(16);
            registrar.failNext = true;
            assertThrows(org.panamardma.verbs.RdmaException.class, () -> cache.acquire(s, ChunkAccess.SOURCE));
            assertEquals(0, cache.size());
            Entry e = cache.acquire(s, ChunkAccess.SOURCE);
            cache.release(e, false);
            assertEquals(1, cache.size());
        }
        assertThrows(IllegalArgumentException.class, () -> new RegistrationCache("c", registrar, -1));
    }

    @Test
    void concurrentCallsOverTheSameMemoryShareOneRegistrationAndLeaveNothingBehind() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 4 * 4096);
        try (Arena arena = Arena.ofShared()) {
            List<MemorySegment> segments = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                segments.add(arena.allocate(4096));
            }
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                workers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 3000; i++) {
                        MemorySegment s = segments.get((seed * 7 + i) % segments.size());
                        try {
                            Entry e = cache.acquire(s, ChunkAccess.SINK);
                            registrar.covering(e.rkey(), s.address(), s.byteSize()); // live while held
                            cache.release(e, i % 97 == 0);
                        } catch (Exception x) {
                            throw new RuntimeException(x);
                        }
                    }
                }));
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertTrue(cache.cachedBytes() <= 4 * 4096);
            assertEquals(cache.size(), registrar.live.size(), "every registration not cached was deregistered");
        }
        cache.close();
        assertTrue(registrar.live.isEmpty());
        assertEquals(registrar.registrations.get(), registrar.deregistrations.get());
    }

    @Test
    void clearDropsEverythingAtOnceButWhatACallStillUsesGoesWithTheCall() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        try (Arena arena = Arena.ofShared()) {
            Entry idle = cache.acquire(arena.allocate(4096), ChunkAccess.SOURCE);
            cache.release(idle, false);
            Entry busy = cache.acquire(arena.allocate(4096), ChunkAccess.SINK);
            cache.clear();
            assertFalse(registrar.live.containsKey(idle.rkey()));
            assertTrue(registrar.live.containsKey(busy.rkey()));
            assertEquals(0, cache.size());
            cache.release(busy, false);
            assertTrue(registrar.live.isEmpty());
            Entry after = cache.acquire(arena.allocate(64), ChunkAccess.SOURCE); // still usable, unlike close
            cache.release(after, false);
            cache.close();
            assertThrows(IllegalStateException.class, () -> cache.acquire(arena.allocate(64), ChunkAccess.SOURCE));
        }
        assertTrue(registrar.live.isEmpty());
    }

    @Test
    void overlappingAndTouchingSlicesMergeIntoOneRegistrationOfTheirSpan() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(64 * 1024);
            Entry first = cache.acquire(buffer.asSlice(0, 16384), ChunkAccess.SOURCE);
            cache.release(first, false);
            Entry overlapping = cache.acquire(buffer.asSlice(8192, 16384), ChunkAccess.SOURCE);
            cache.release(overlapping, false);
            assertNotSame(first, overlapping);
            assertFalse(registrar.live.containsKey(first.rkey()), "the merged registration replaced it");
            registrar.covering(overlapping.rkey(), buffer.address(), 24576);
            Entry touching = cache.acquire(buffer.asSlice(24576, 8192), ChunkAccess.SOURCE);
            cache.release(touching, false);
            registrar.covering(touching.rkey(), buffer.address(), 32768);
            assertEquals(1, registrar.live.size(), "one registration spans all three");
            assertEquals(2, cache.merges());
            long registrations = registrar.registrations.get();
            for (int off = 0; off + 1000 <= 32768; off += 1531) { // any slice of the span: no registration
                Entry e = cache.acquire(buffer.asSlice(off, 1000), ChunkAccess.SOURCE);
                assertSame(touching, e);
                cache.release(e, false);
            }
            assertEquals(registrations, registrar.registrations.get());
            assertEquals(1, cache.size());
            assertEquals(32768, cache.cachedBytes());

            Entry apart = cache.acquire(buffer.asSlice(40960, 4096), ChunkAccess.SOURCE);
            cache.release(apart, false);
            assertNotSame(touching, apart, "a gap between them: not merged");
            assertEquals(2, cache.size());
            Entry bridge = cache.acquire(buffer.asSlice(30000, 12000), ChunkAccess.SOURCE);
            cache.release(bridge, false);
            registrar.covering(bridge.rkey(), buffer.address(), 40960 + 4096);
            assertEquals(1, cache.size(), "a slice over the gap merges both");
            assertEquals(1, registrar.live.size());
            Entry sink = cache.acquire(buffer.asSlice(0, 4096), ChunkAccess.SINK);
            cache.release(sink, false);
            assertNotSame(bridge, sink, "other rights never merge");
            assertEquals(Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE), registrar.live.get(sink.rkey()).access());
        }
        cache.close();
        assertTrue(registrar.live.isEmpty());
    }

    @Test
    void aMergeStaysWithinTheBoundAndARegistrationInUseOutlivesItsReplacement() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 16384);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(64 * 1024);
            Entry held = cache.acquire(buffer.asSlice(0, 12288), ChunkAccess.SINK);
            Entry next = cache.acquire(buffer.asSlice(8192, 12288), ChunkAccess.SINK);
            registrar.covering(next.rkey(), buffer.address() + 8192, 12288);
            assertEquals(12288, registrar.live.get(next.rkey()).segment().byteSize(),
                    "the span (20 KiB) would exceed the 16 KiB bound: registered alone");
            assertTrue(registrar.live.containsKey(held.rkey()), "replaced, but its call still holds it");
            assertTrue(held.retired);
            assertEquals(1, cache.size());
            cache.release(held, false);
            assertFalse(registrar.live.containsKey(held.rkey()), "gone with its call");
            cache.release(next, false);
            assertTrue(cache.cachedBytes() <= cache.maxBytes());
            Entry again = cache.acquire(buffer.asSlice(8192, 100), ChunkAccess.SINK);
            assertSame(next, again);
            cache.release(again, false);
        }
    }

    @Test
    void randomSlicesOfOneBufferFromManyThreadsAreAlwaysCoveredAndLeaveNothingBehind() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(256 * 1024);
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                java.util.SplittableRandom random = new java.util.SplittableRandom(t);
                workers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 3000; i++) {
                        long size = random.nextLong(1, 32 * 1024);
                        long offset = random.nextLong(0, buffer.byteSize() - size + 1);
                        ChunkAccess access = random.nextInt(4) == 0 ? ChunkAccess.SINK : ChunkAccess.SOURCE;
                        try {
                            Entry e = cache.acquire(buffer.asSlice(offset, size), access);
                            FakeRegistrar.Live l = registrar.covering(e.rkey(), buffer.address() + offset, size);
                            assertEquals(access.rights, l.access());
                            cache.release(e, i % 997 == 0); // now and then a call timed out
                        } catch (Exception x) {
                            throw new RuntimeException(x);
                        }
                    }
                }));
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertEquals(cache.size(), registrar.live.size(), "every registration not cached was deregistered");
            System.out.printf("12,000 slices: %d registrations, %d merges, %d cached at the end%n",
                    registrar.registrations.get(), cache.merges(), cache.size());
            assertTrue(cache.size() <= 16, "the buffer's slices merged: " + cache.size() + " entries");
            assertTrue(registrar.registrations.get() < 4 * 3000 / 10,
                    "most calls found their slice registered: " + registrar.registrations.get());
        }
        cache.close();
        assertTrue(registrar.live.isEmpty());
        assertEquals(registrar.registrations.get(), registrar.deregistrations.get());
    }
}
