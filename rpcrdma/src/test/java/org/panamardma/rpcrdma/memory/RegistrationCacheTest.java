package org.panamardma.rpcrdma.memory;

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
import org.panamardma.rpcrdma.memory.RegistrationCache.Entry;
import org.panamardma.verbs.Access;

class RegistrationCacheTest {
    private final FakeRegistrar registrar = new FakeRegistrar();

    @Test
    void theSameSegmentIsRegisteredOnceWithoutRemoteRightsAndReusedWhileItsArenaLives() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment data = arena.allocate(8192);
            Entry first = cache.acquire(data);
            cache.release(first);
            for (int i = 0; i < 50; i++) {
                Entry e = cache.acquire(data);
                assertSame(first, e);
                cache.release(e);
            }
            assertEquals(1, registrar.registrations.get());
            assertEquals(50, cache.hits());
            FakeRegistrar.Live live = registrar.live.get(first.registration().rkey());
            assertEquals(
                    Set.of(Access.LOCAL_WRITE, Access.MW_BIND),
                    live.access(),
                    "no remote right: the server reaches it only through a window bound for a call");
            assertEquals(data.address(), live.segment().address());
            assertEquals(8192, live.segment().byteSize(), "exactly the segment");
        }
        cache.close();
        assertTrue(registrar.live.isEmpty(), "close deregisters what no call uses");
    }

    @Test
    void aSliceOfCachedMemoryGetsARegistrationOfExactlyItselfNeverTheLargerOne() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(3 * 4096);
            Entry whole = cache.acquire(buffer);
            Entry middle = cache.acquire(buffer.asSlice(4096, 4096));
            Entry again = cache.acquire(buffer.asSlice(4096, 4096));
            assertNotSame(whole, middle, "a window over the whole would reach the neighbours on rxe");
            assertSame(middle, again);
            FakeRegistrar.Live live = registrar.live.get(middle.registration().rkey());
            assertEquals(buffer.address() + 4096, live.segment().address());
            assertEquals(4096, live.segment().byteSize());
            cache.release(whole);
            cache.release(middle);
            cache.release(again);
            assertEquals(2, registrar.registrations.get());
            assertEquals(4 * 4096, cache.cachedBytes());
        }
        cache.close();
        assertTrue(registrar.live.isEmpty());
    }

    @Test
    void aClosedArenasRegistrationIsNeverReturnedEvenAtTheSameAddress() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        Arena first = Arena.ofConfined();
        MemorySegment a = first.allocate(4096);
        Entry old = cache.acquire(a);
        cache.release(old);
        first.close();
        // whatever address the next arena gets, its scope differs: the key cannot match
        try (Arena second = Arena.ofConfined()) {
            MemorySegment b = second.allocate(4096);
            Entry fresh = cache.acquire(b);
            assertNotSame(old, fresh);
            assertFalse(
                    registrar.live.containsKey(old.registration().rkey()),
                    "the miss swept the closed arena's entry and deregistered it");
            cache.release(fresh);
        }
        assertEquals(2, registrar.registrations.get());
        assertThrows(
                IllegalStateException.class,
                () -> cache.acquire(a),
                "memory of a closed arena is refused, never looked up");
    }

    @Test
    void sweepDropsClosedScopesAndForgetDropsOneScopeAtOnce() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        Arena gone = Arena.ofShared();
        Entry e1 = cache.acquire(gone.allocate(4096));
        cache.release(e1);
        Arena kept = Arena.ofShared();
        Entry e2 = cache.acquire(kept.allocate(4096));
        cache.release(e2);
        gone.close();
        assertEquals(1, cache.sweep(Integer.MAX_VALUE));
        assertEquals(1, cache.size());
        assertFalse(registrar.live.containsKey(e1.registration().rkey()));
        assertEquals(1, cache.forget(kept.scope()));
        assertFalse(registrar.live.containsKey(e2.registration().rkey()), "deregistered before the arena closes");
        kept.close();
        assertEquals(0, cache.size());
        assertEquals(0, cache.cachedBytes());
    }

    @Test
    void anEntryInUseIsNeitherEvictedNorDeregisteredWhenItsScopeCloses() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 8192);
        try (Arena arena = Arena.ofShared()) {
            Entry busy = cache.acquire(arena.allocate(8192));
            Entry other = cache.acquire(arena.allocate(4096));
            assertTrue(registrar.live.containsKey(busy.registration().rkey()), "never evicted while in use");
            assertTrue(other.retired, "no room: the call got a registration of its own");
            cache.release(other);
            assertFalse(
                    registrar.live.containsKey(other.registration().rkey()), "its own registration went with the call");
            cache.release(busy);
            assertTrue(registrar.live.containsKey(busy.registration().rkey()), "cached for the next call");
        }
        cache.sweep(Integer.MAX_VALUE);
        assertTrue(registrar.live.isEmpty());

        Arena closing = Arena.ofShared();
        Entry held = cache.acquire(closing.allocate(4096));
        closing.close(); // caller misuse during a call: the registration must outlive the call, not the arena
        cache.sweep(Integer.MAX_VALUE);
        assertTrue(registrar.live.containsKey(held.registration().rkey()), "still in use by its call");
        assertEquals(0, cache.size(), "but never returned again");
        cache.release(held);
        assertFalse(registrar.live.containsKey(held.registration().rkey()));
    }

    @Test
    void evictsTheLeastRecentlyUsedEntriesNoCallUsesToStayWithinItsBound() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 3 * 4096);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] s = new MemorySegment[4];
            Entry[] e = new Entry[4];
            for (int i = 0; i < 3; i++) {
                s[i] = arena.allocate(4096);
                e[i] = cache.acquire(s[i]);
                cache.release(e[i]);
            }
            cache.release(cache.acquire(s[0])); // s[1] is now the eldest
            s[3] = arena.allocate(4096);
            e[3] = cache.acquire(s[3]);
            cache.release(e[3]);
            assertFalse(registrar.live.containsKey(e[1].registration().rkey()), "the least recently used went");
            assertTrue(registrar.live.containsKey(e[0].registration().rkey()));
            assertTrue(registrar.live.containsKey(e[2].registration().rkey()));
            assertEquals(3 * 4096, cache.cachedBytes());
            assertTrue(cache.cachedBytes() <= cache.maxBytes());
        }
    }

    @Test
    void refusesHeapAndEmptySegmentsAndWorksAfterAFailedRegistration() throws Exception {
        RegistrationCache cache = new RegistrationCache("cache", registrar, 1 << 20);
        assertThrows(IllegalArgumentException.class, () -> cache.acquire(MemorySegment.ofArray(new byte[16])));
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> cache.acquire(arena.allocate(16).asSlice(0, 0)));
            MemorySegment s = arena.allocate(16);
            registrar.failNext = true;
            assertThrows(org.panamardma.verbs.RdmaException.class, () -> cache.acquire(s));
            assertEquals(0, cache.size());
            Entry e = cache.acquire(s);
            cache.release(e);
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
                            Entry e = cache.acquire(s);
                            registrar.covering(e.registration().rkey(), s.address(), s.byteSize()); // live while held
                            cache.release(e);
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
            Entry idle = cache.acquire(arena.allocate(4096));
            cache.release(idle);
            Entry busy = cache.acquire(arena.allocate(4096));
            cache.clear();
            assertFalse(registrar.live.containsKey(idle.registration().rkey()));
            assertTrue(registrar.live.containsKey(busy.registration().rkey()));
            assertEquals(0, cache.size());
            cache.release(busy);
            assertTrue(registrar.live.isEmpty());
            Entry after = cache.acquire(arena.allocate(64)); // still usable, unlike close
            cache.release(after);
            cache.close();
            assertThrows(IllegalStateException.class, () -> cache.acquire(arena.allocate(64)));
        }
        assertTrue(registrar.live.isEmpty());
    }
}
