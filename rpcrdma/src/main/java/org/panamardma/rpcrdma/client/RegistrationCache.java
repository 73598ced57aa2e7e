package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.RdmaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registrations of caller memory (native segments handed to calls as DDP-eligible data or placement targets),
 * kept after the call so that the next call over the same memory makes no {@code ibv_reg_mr}.
 *
 * <p><b>Arena lifetimes.</b> An entry is keyed by the segment's address, size and owning scope
 * ({@link MemorySegment#scope()}) and by the rights ({@link ChunkAccess}), and is returned only while that scope
 * is alive: memory of a closed arena may be handed out again by the allocator at the same address, and a
 * registration made over the old memory would pin and expose stale pages. Entries of a closed scope are dropped
 * and deregistered, never returned: lazily when looked up, by {@link #sweep(int)} (the client sweeps a few on
 * every miss and all of them once a second), and at once by {@link #forget(MemorySegment.Scope)}, which a caller
 * closing an arena whose memory went to calls may use first. Until then the registration stays: a closed arena's
 * memory remains registered (the device's pages stay pinned) for up to the sweep period, and a server using an old
 * handle (which RFC 8166 section 3.4.3 gives it no right to after the call) could reach it. Callers that cannot
 * accept this run with a cache of 0 bytes: every call then registers and deregisters its own memory. (Memory of an
 * automatic arena, {@code Arena.ofAuto()}, stays reachable through its cached key, so the garbage collector does not
 * free it under its registration; it goes when the entry is evicted.)
 *
 * <p><b>Bounded.</b> At most {@code maxBytes} of cached registrations; to make room the least recently used
 * entries no call is using are deregistered. Entries in use by a call are never evicted; when the cache cannot
 * make room, or a segment is larger than the whole cache, the call gets a registration of its own, deregistered
 * when it lets go (what every call did before the cache).
 *
 * <p>Thread-safe: one monitor guards the map; {@code ibv_reg_mr} and {@code ibv_dereg_mr} run outside it.
 */
final class RegistrationCache {
    private static final Logger LOG = LoggerFactory.getLogger(RegistrationCache.class);
    /** Entries a miss checks for closed scopes before registering. */
    static final int SWEEP_ON_MISS = 8;

    private final String name;
    private final ChunkRegistrar registrar;
    private final long maxBytes;
    /** In access order: the eldest is the least recently used. Guarded by this. */
    private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    // guarded by this
    private long cachedBytes;
    private long hits;
    private long misses;
    private long registrations;
    private long deregistrations;
    private boolean closed;

    /** What a chunk lets the server do with the memory (least rights, as per call before). */
    enum ChunkAccess {
        /** A Read chunk: the server reads it (RFC 8166 section 3.4.5). */
        SOURCE(Set.of(Access.REMOTE_READ)),
        /** A Write or Reply chunk: the server writes it (RFC 8166 section 3.4.6). */
        SINK(Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));

        final Set<Access> rights;

        ChunkAccess(Set<Access> rights) {
            this.rights = rights;
        }
    }

    record Key(long address, long size, MemorySegment.Scope scope, ChunkAccess access) {
    }

    /** One registration, held by the calls using it ({@link #uses}). */
    static final class Entry {
        final Key key;
        final ChunkRegistrar.Registration registration;
        /** Guarded by the cache. */
        int uses;
        /** Guarded by the cache: out of the map, never returned again; deregistered when no call uses it. */
        boolean retired;
        /** Guarded by the cache: counted in {@link #cachedBytes}. */
        boolean counted;

        Entry(Key key, ChunkRegistrar.Registration registration) {
            this.key = key;
            this.registration = registration;
        }

        int rkey() {
            return registration.rkey();
        }
    }

    RegistrationCache(String name, ChunkRegistrar registrar, long maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("a registration cache bound must not be negative: " + maxBytes);
        }
        this.name = name;
        this.registrar = registrar;
        this.maxBytes = maxBytes;
    }

    /**
     * The registration of {@code segment} with {@code access}, from the cache or new; held until
     * {@link #release(Entry, boolean)}.
     *
     * @throws IllegalArgumentException for a heap or empty segment
     * @throws IllegalStateException if the segment's arena is closed, or the cache is
     * @throws RdmaException if {@code ibv_reg_mr} failed
     */
    Entry acquire(MemorySegment segment, ChunkAccess access) throws RdmaException {
        if (!segment.isNative() || segment.byteSize() == 0) {
            throw new IllegalArgumentException(name + ": only non-empty native memory is registered in place");
        }
        MemorySegment.Scope scope = segment.scope();
        if (!scope.isAlive()) {
            throw new IllegalStateException(name + ": a call was given memory whose arena is closed");
        }
        Key key = new Key(segment.address(), segment.byteSize(), scope, access);
        List<Entry> dead = new ArrayList<>();
        try {
            synchronized (this) {
                checkOpen();
                Entry e = entries.get(key);
                if (e != null && scope.isAlive()) {
                    e.uses++;
                    hits++;
                    return e;
                }
                misses++;
                sweep(SWEEP_ON_MISS, dead);
            }
        } finally {
            deregisterAll(dead);
        }
        ChunkRegistrar.Registration r = registrar.register(segment, access.rights);
        Entry mine = new Entry(key, r);
        mine.uses = 1;
        List<Entry> evicted = new ArrayList<>();
        try {
            synchronized (this) {
                registrations++;
                if (closed) {
                    mine.retired = true;
                    evicted.add(mine);
                    checkOpen();
                }
                Entry raced = entries.get(key);
                if (raced != null && !raced.retired) { // another call registered the same memory meanwhile
                    raced.uses++;
                    mine.retired = true;
                    mine.uses = 0;
                    evicted.add(mine);
                    return raced;
                }
                if (makeRoom(key.size(), evicted)) {
                    entries.put(key, mine);
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

    /**
     * The call that acquired {@code e} lets go of it.
     *
     * @param invalidate whether the entry must not be reused: the call timed out after it was sent, so the server
     *     may still access the memory, and the caller may free it now that the call has failed; the registration
     *     goes as soon as no other call uses it (before the cache, every timed-out call's memory was deregistered
     *     at once, so a late RDMA access fails on the rkey instead of reaching freed memory)
     */
    void release(Entry e, boolean invalidate) {
        boolean deregister = false;
        synchronized (this) {
            if (e.uses <= 0) {
                throw new IllegalStateException(name + ": a registration released more often than acquired");
            }
            e.uses--;
            if ((invalidate || !e.key.scope().isAlive()) && !e.retired) {
                retire(e);
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
     * Drops every entry whose scope is closed, or up to {@code limit} entries examined from the least recently
     * used; those no call uses are deregistered.
     *
     * @return how many entries were dropped
     */
    int sweep(int limit) {
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
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext() && seen < limit; seen++) {
            Entry e = it.next();
            if (!e.key.scope().isAlive()) {
                it.remove();
                uncount(e);
                e.retired = true;
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
    int forget(MemorySegment.Scope scope) {
        List<Entry> dead = new ArrayList<>();
        synchronized (this) {
            for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (e.key.scope().equals(scope)) {
                    it.remove();
                    uncount(e);
                    e.retired = true;
                    if (e.uses == 0) {
                        dead.add(e);
                    }
                }
            }
        }
        deregisterAll(dead);
        return dead.size();
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
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext() && cachedBytes + size > maxBytes; ) {
            Entry e = it.next();
            if (e.uses == 0) {
                it.remove();
                uncount(e);
                e.retired = true;
                evicted.add(e);
            }
        }
        return cachedBytes + size <= maxBytes;
    }

    // guarded by this
    private void retire(Entry e) {
        if (entries.get(e.key) == e) {
            entries.remove(e.key);
        }
        uncount(e);
        e.retired = true;
    }

    // guarded by this
    private void uncount(Entry e) {
        if (e.counted) {
            e.counted = false;
            cachedBytes -= e.key.size();
        }
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
    void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        clear();
    }

    /**
     * Drops every entry: those no call uses are deregistered, those in use go when their call lets go (a client
     * whose connection is lost lets the caller's memory go at once rather than at close).
     */
    void clear() {
        List<Entry> dead = new ArrayList<>();
        synchronized (this) {
            for (Entry e : entries.values()) {
                uncount(e);
                e.retired = true;
                if (e.uses == 0) {
                    dead.add(e);
                }
            }
            entries.clear();
        }
        deregisterAll(dead);
    }

    /** @return bytes held by cached registrations (not counting calls' own) */
    synchronized long cachedBytes() {
        return cachedBytes;
    }

    synchronized int size() {
        return entries.size();
    }

    synchronized long hits() {
        return hits;
    }

    synchronized long misses() {
        return misses;
    }

    /** @return ibv_reg_mr calls made through the cache */
    synchronized long registrations() {
        return registrations;
    }

    /** @return ibv_dereg_mr calls made through the cache */
    synchronized long deregistrations() {
        return deregistrations;
    }

    long maxBytes() {
        return maxBytes;
    }
}
