package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.panamardma.verbs.RdmaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registrations of the caller's own native memory (segments handed to calls as DDP-eligible data or placement
 * targets) that memory windows are bound to (the client's {@code ChunkExposure.MEMORY_WINDOWS}), kept after the call so that the
 * next call over the same segment makes no {@code ibv_reg_mr}.
 *
 * <p><b>Nothing for the server.</b> A cached registration has no remote right ({@link #RIGHTS}: local write and
 * window binding only): its key gives the server nothing, and the server reaches the memory only through a window
 * bound for one call and invalidated before that call completes.
 *
 * <p><b>Exactly the segment.</b> An entry covers exactly one segment (its arena, address and size) and serves only
 * a segment with the same three: it is never grown over neighbouring memory, since some devices check a window's
 * accesses against its region rather than the window (rxe: {@code check_rkey}), and a window over a larger region
 * would then reach memory of other calls or none. A caller that reads or writes the same buffers call after call
 * (the usual case: an I/O buffer per thread, slices at fixed offsets) registers each once.
 *
 * <p><b>Arena lifetimes.</b> An entry belongs to the segment's scope ({@link MemorySegment#scope()}) and is returned
 * only while that scope is alive: memory of a closed arena may be handed out again at the same address. Entries of
 * a closed scope are dropped and deregistered, never returned: when looked up, by {@link #sweep(int)} (a few on
 * every miss, all of them once a second by the client's timer), and at once by {@link #forget(MemorySegment.Scope)}.
 * Until then a closed arena's pages stay pinned (no peer can touch them: no window is bound to them once their calls
 * ended). Memory of an automatic arena stays reachable through the cached scope, so the garbage collector does not
 * free it under its registration; it goes when the entry is evicted.
 *
 * <p><b>Bounded.</b> At most {@code maxBytes} of cached registrations; to make room the least recently used entries
 * no call is using are deregistered. Entries in use by a call are never evicted; when the cache cannot make room,
 * or a segment is larger than the whole cache, the call gets a registration of its own, deregistered when it lets
 * go.
 *
 * <p>Thread-safe: one monitor guards the maps; {@code ibv_reg_mr} and {@code ibv_dereg_mr} run outside it.
 */
public final class RegistrationCache {
    private static final Logger LOG = LoggerFactory.getLogger(RegistrationCache.class);
    /** Entries a miss checks for closed scopes before registering. */
    public static final int SWEEP_ON_MISS = 8;
    /** What a cached registration grants: windows may be bound to it, writable ones too; no remote right. */
    public static final LocalRights RIGHTS = LocalRights.WINDOW_BASE;

    private final String name;
    private final LocalRegistrar registrar;
    private final long maxBytes;
    /** The cached entries by their segment. Guarded by this. */
    private final Map<Key, Entry> entries = new HashMap<>();
    /** The same entries in access order: the eldest is the least recently used. Guarded by this. */
    private final LinkedHashMap<Entry, Entry> lru = new LinkedHashMap<>(16, 0.75f, true);
    // guarded by this
    private long cachedBytes;
    private long hits;
    private long misses;
    private long registrations;
    private long deregistrations;
    private boolean closed;

    /** A segment: the arena it belongs to, its address and size. */
    public record Key(MemorySegment.Scope scope, long address, long size) {
        /** @return the key of {@code s} */
        public static Key of(MemorySegment s) {
            return new Key(s.scope(), s.address(), s.byteSize());
        }
    }

    /** One registration, held by the calls using it ({@link #uses}); identity is its equality. */
    public static final class Entry {
        final Key key;
        private final Registration registration;
        /** Guarded by the cache. */
        int uses;
        /** Guarded by the cache: out of the maps, never returned again; deregistered when no call uses it. */
        boolean retired;
        /** Guarded by the cache: counted in {@link #cachedBytes}. */
        boolean counted;

        Entry(Key key, Registration registration) {
            this.key = key;
            this.registration = registration;
        }

        /** @return the registration a window is bound to */
        public Registration registration() {
            return registration;
        }
    }

    /**
     * @param name names the cache in messages
     * @param registrar registers with {@link #RIGHTS}
     * @param maxBytes the most bytes of cached registrations
     */
    public RegistrationCache(String name, LocalRegistrar registrar, long maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("a registration cache bound must not be negative: " + maxBytes);
        }
        this.name = name;
        this.registrar = registrar;
        this.maxBytes = maxBytes;
    }

    /**
     * A registration of exactly {@code segment} ({@link #RIGHTS}), from the cache or new; held until
     * {@link #release(Entry)}.
     *
     * @throws IllegalArgumentException for a heap or empty segment
     * @throws IllegalStateException if the segment's arena is closed, or the cache is
     * @throws RdmaException if {@code ibv_reg_mr} failed
     */
    public Entry acquire(MemorySegment segment) throws RdmaException {
        if (!segment.isNative() || segment.byteSize() == 0) {
            throw new IllegalArgumentException(name + ": only non-empty native memory is registered in place");
        }
        MemorySegment.Scope scope = segment.scope();
        if (!scope.isAlive()) {
            throw new IllegalStateException(name + ": a call was given memory whose arena is closed");
        }
        Key key = Key.of(segment);
        List<Entry> dead = new ArrayList<>();
        try {
            synchronized (this) {
                checkOpen();
                Entry e = entries.get(key);
                if (e != null && scope.isAlive()) {
                    e.uses++;
                    hits++;
                    lru.get(e);
                    return e;
                }
                misses++;
                sweep(SWEEP_ON_MISS, dead);
            }
        } finally {
            deregisterAll(dead);
        }
        Entry mine = new Entry(key, registrar.register(segment, RIGHTS));
        mine.uses = 1;
        List<Entry> evicted = new ArrayList<>();
        try {
            synchronized (this) {
                registrations++;
                if (closed) {
                    mine.retired = true;
                    mine.uses = 0;
                    evicted.add(mine);
                    checkOpen();
                }
                Entry raced = entries.get(key);
                if (raced != null) { // another call registered the same segment meanwhile
                    raced.uses++;
                    lru.get(raced);
                    mine.retired = true;
                    mine.uses = 0;
                    evicted.add(mine);
                    return raced;
                }
                if (!scope.isAlive()) {
                    mine.retired = true; // the caller closed the arena during the call: never cached
                    return mine;
                }
                if (makeRoom(key.size(), evicted)) {
                    entries.put(key, mine);
                    lru.put(mine, mine);
                    mine.counted = true;
                    cachedBytes += key.size();
                } else {
                    mine.retired = true; // one call's own registration, deregistered when it lets go
                }
                return mine;
            }
        } finally {
            deregisterAll(evicted);
        }
    }

    /** The call that acquired {@code e} lets go of it (its window is revoked). */
    public void release(Entry e) {
        boolean deregister = false;
        synchronized (this) {
            if (e.uses <= 0) {
                throw new IllegalStateException(name + ": a registration released more often than acquired");
            }
            e.uses--;
            if (!e.key.scope().isAlive() && !e.retired) {
                drop(e);
            }
            if (e.retired && e.uses == 0) {
                deregister = true;
            }
        }
        if (deregister) {
            deregister(e);
        }
    }

    /**
     * Drops every entry whose scope is closed among up to {@code limit} entries examined from the least recently
     * used; those no call uses are deregistered.
     *
     * @return how many entries were dropped
     */
    public int sweep(int limit) {
        List<Entry> dead = new ArrayList<>();
        int dropped;
        synchronized (this) {
            dropped = sweep(limit, dead);
        }
        deregisterAll(dead);
        return dropped;
    }

    // guarded by this
    private int sweep(int limit, List<Entry> dead) {
        int dropped = 0;
        int seen = 0;
        for (Iterator<Entry> it = lru.keySet().iterator(); it.hasNext() && seen < limit; seen++) {
            Entry e = it.next();
            if (!e.key.scope().isAlive()) {
                it.remove();
                unmap(e);
                dropped++;
                if (e.uses == 0) {
                    dead.add(e);
                }
            }
        }
        return dropped;
    }

    /**
     * Drops every entry of {@code scope} at once: call it before closing an arena whose memory went to calls, so
     * that none of its registrations outlives it. Entries in use by a call are deregistered when the call lets go.
     *
     * @return how many entries were dropped
     */
    public int forget(MemorySegment.Scope scope) {
        List<Entry> dead = new ArrayList<>();
        int dropped = 0;
        synchronized (this) {
            for (Iterator<Entry> it = lru.keySet().iterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (e.key.scope().equals(scope)) {
                    it.remove();
                    unmap(e);
                    dropped++;
                    if (e.uses == 0) {
                        dead.add(e);
                    }
                }
            }
        }
        deregisterAll(dead);
        return dropped;
    }

    /**
     * Evicts least recently used entries no call uses until {@code size} more bytes fit, dropping closed scopes
     * first wherever they are; guarded by this.
     *
     * @return whether {@code size} bytes now fit
     */
    private boolean makeRoom(long size, List<Entry> evicted) {
        if (size > maxBytes) {
            return false;
        }
        if (cachedBytes + size <= maxBytes) {
            return true;
        }
        sweep(Integer.MAX_VALUE, evicted);
        for (Iterator<Entry> it = lru.keySet().iterator(); it.hasNext() && cachedBytes + size > maxBytes; ) {
            Entry e = it.next();
            if (e.uses == 0) {
                it.remove();
                unmap(e);
                evicted.add(e);
            }
        }
        return cachedBytes + size <= maxBytes;
    }

    /** Takes a cached entry out of the cache for good (deregistered when no call uses it); guarded by this. */
    private void drop(Entry e) {
        lru.remove(e);
        unmap(e);
    }

    /** {@link #drop} but for the access-order map, which the caller's iterator leaves; guarded by this. */
    private void unmap(Entry e) {
        entries.remove(e.key, e);
        if (e.counted) {
            e.counted = false;
            cachedBytes -= e.key.size();
        }
        e.retired = true;
    }

    private void deregisterAll(List<Entry> dead) {
        for (Entry e : dead) {
            deregister(e);
        }
    }

    private void deregister(Entry e) {
        try {
            e.registration.deregister();
        } catch (RuntimeException x) {
            // MemoryRegion has logged it: the caller's memory stays registered and must not be freed
            LOG.warn(name + ": deregistering cached caller memory", x);
        }
        synchronized (this) {
            deregistrations++;
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    /** Closes: {@link #clear()}, and refuses further lookups. Idempotent. */
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        clear();
    }

    /** Drops every entry: those no call uses are deregistered, those in use go when their call lets go. */
    public void clear() {
        List<Entry> dead = new ArrayList<>();
        synchronized (this) {
            for (Entry e : lru.keySet()) {
                e.counted = false;
                e.retired = true;
                if (e.uses == 0) {
                    dead.add(e);
                }
            }
            lru.clear();
            entries.clear();
            cachedBytes = 0;
        }
        deregisterAll(dead);
    }

    /** @return bytes held by cached registrations (not counting calls' own) */
    public synchronized long cachedBytes() {
        return cachedBytes;
    }

    /** @return the cached entries */
    public synchronized int size() {
        return lru.size();
    }

    /** @return lookups a cached entry served */
    public synchronized long hits() {
        return hits;
    }

    /** @return lookups that registered */
    public synchronized long misses() {
        return misses;
    }

    /** @return ibv_reg_mr calls made through the cache */
    public synchronized long registrations() {
        return registrations;
    }

    /** @return ibv_dereg_mr calls made through the cache */
    public synchronized long deregistrations() {
        return deregistrations;
    }

    /** @return the bound given at construction */
    public long maxBytes() {
        return maxBytes;
    }
}
