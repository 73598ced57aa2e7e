package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.trusted.Spans;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registrations of caller memory (native segments handed to calls as DDP-eligible data or placement targets),
 * kept after the call so that the next call over the same memory makes no {@code ibv_reg_mr}.
 *
 * <p><b>By range, merged.</b> A call's segment is served by any cached registration of the same arena and rights
 * that covers it, not only by one of the same address and size: a client reading into, or sending from, slices of
 * one large buffer at changing offsets and lengths registers that buffer once, not once per slice. On a miss the
 * new registration spans the request together with the cached registrations it overlaps or touches (of the same
 * arena and rights: the span is memory the caller's own segments cover, {@link Spans#union}), as UCX's
 * registration cache merges regions; the registrations it replaces leave the cache at once and are deregistered
 * when no call uses them. The cached ranges of one arena and rights never overlap, so a lookup is one
 * {@link TreeMap#floorEntry}. A merge never makes a registration larger than the cache's bound; beyond it the
 * request is registered alone. The price: an rkey a server learned for one call also reaches the neighbouring
 * memory the caller gave to earlier calls with the same rights (RFC 8166 section 3.4.3 gives it no right to use
 * a handle after its call, and every cached registration shares that exposure; callers that cannot accept it run
 * with a cache of 0 bytes, and every call then registers and deregisters exactly its own memory).
 *
 * <p><b>Arena lifetimes.</b> An entry belongs to the segment's owning scope ({@link MemorySegment#scope()}) and
 * rights ({@link ChunkAccess}), and is returned only while that scope is alive: memory of a closed arena may be
 * handed out again by the allocator at the same address, and a registration made over the old memory would pin
 * and expose stale pages. Entries of a closed scope are dropped and deregistered, never returned: lazily when
 * looked up, by {@link #sweep(int)} (the client sweeps a few on every miss and all of them once a second), and at
 * once by {@link #forget(MemorySegment.Scope)}, which a caller closing an arena whose memory went to calls may use
 * first. Until then the registration stays: a closed arena's memory remains registered (the device's pages stay
 * pinned) for up to the sweep period. (Memory of an automatic arena, {@code Arena.ofAuto()}, stays reachable
 * through its cached scope, so the garbage collector does not free it under its registration; it goes when the
 * entry is evicted.)
 *
 * <p><b>Bounded.</b> At most {@code maxBytes} of cached registrations; to make room the least recently used
 * entries no call is using are deregistered. Entries in use by a call are never evicted; when the cache cannot
 * make room, or a segment is larger than the whole cache, the call gets a registration of its own, deregistered
 * when it lets go (what every call did before the cache).
 *
 * <p>Thread-safe: one monitor guards the maps; {@code ibv_reg_mr} and {@code ibv_dereg_mr} run outside it.
 */
final class RegistrationCache {
    private static final Logger LOG = LoggerFactory.getLogger(RegistrationCache.class);
    /** Entries a miss checks for closed scopes before registering. */
    static final int SWEEP_ON_MISS = 8;

    private final String name;
    private final ChunkRegistrar registrar;
    private final long maxBytes;
    /** The cached entries of each arena and rights by start address; their ranges never overlap. Guarded by this. */
    private final Map<Group, TreeMap<Long, Entry>> groups = new HashMap<>();
    /** The same entries in access order: the eldest is the least recently used. Guarded by this. */
    private final LinkedHashMap<Entry, Entry> lru = new LinkedHashMap<>(16, 0.75f, true);
    // guarded by this
    private long cachedBytes;
    private long hits;
    private long misses;
    private long merges;
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

    /** The memory of one arena registered with one set of rights: only such registrations merge or serve. */
    record Group(MemorySegment.Scope scope, ChunkAccess access) {
    }

    /** One registration, held by the calls using it ({@link #uses}); identity is its equality. */
    static final class Entry {
        final Group group;
        /** The registered range: {@code [start, start + size)}. */
        final long start;
        final long size;
        final ChunkRegistrar.Registration registration;
        /** Guarded by the cache. */
        int uses;
        /** Guarded by the cache: out of the maps, never returned again; deregistered when no call uses it. */
        boolean retired;
        /** Guarded by the cache: counted in {@link #cachedBytes}. */
        boolean counted;

        Entry(Group group, ChunkRegistrar.Registration registration) {
            this.group = group;
            this.start = registration.segment().address();
            this.size = registration.segment().byteSize();
            this.registration = registration;
        }

        int rkey() {
            return registration.rkey();
        }

        long end() {
            return start + size;
        }

        boolean covers(long address, long bytes) {
            return address >= start && address + bytes <= end();
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
     * A registration covering {@code segment} with {@code access}, from the cache or new; held until
     * {@link #release(Entry, boolean)}. Its range may be larger than the segment: a call advertises the segment's
     * own address and length under the entry's rkey.
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
        Group group = new Group(scope, access);
        long address = segment.address();
        long bytes = segment.byteSize();
        MemorySegment span;
        List<Entry> dead = new ArrayList<>();
        try {
            synchronized (this) {
                checkOpen();
                Entry e = covering(group, address, bytes);
                if (e != null && scope.isAlive()) {
                    e.uses++;
                    hits++;
                    lru.get(e);
                    return e;
                }
                misses++;
                sweep(SWEEP_ON_MISS, dead);
                span = spanWithNeighbours(group, segment);
            }
        } finally {
            deregisterAll(dead);
        }
        ChunkRegistrar.Registration r = registrar.register(span, access.rights);
        Entry mine = new Entry(group, r);
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
                Entry raced = covering(group, address, bytes);
                if (raced != null) { // another call registered memory covering this meanwhile
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
                // the new registration replaces the cached ones it overlaps (those it merged, or raced in)
                boolean merged = false;
                for (Entry old : overlapping(group, mine.start, mine.end())) {
                    drop(old);
                    merged = true;
                    if (old.uses == 0) {
                        evicted.add(old);
                    }
                }
                if (merged) {
                    merges++;
                }
                if (makeRoom(mine.size, evicted)) {
                    groups.computeIfAbsent(group, g -> new TreeMap<>()).put(mine.start, mine);
                    lru.put(mine, mine);
                    mine.counted = true;
                    cachedBytes += mine.size;
                } else {
                    mine.retired = true; // one call's own registration, deregistered when it lets go
                }
                return mine;
            }
        } finally {
            deregisterAll(evicted);
        }
    }

    /** The cached entry of {@code group} covering {@code [address, address + bytes)}, or null; guarded by this. */
    private Entry covering(Group group, long address, long bytes) {
        TreeMap<Long, Entry> ranges = groups.get(group);
        if (ranges == null) {
            return null;
        }
        Map.Entry<Long, Entry> floor = ranges.floorEntry(address);
        return floor != null && floor.getValue().covers(address, bytes) ? floor.getValue() : null;
    }

    /** The cached entries of {@code group} overlapping {@code [start, end)}, in address order; guarded by this. */
    private List<Entry> overlapping(Group group, long start, long end) {
        TreeMap<Long, Entry> ranges = groups.get(group);
        if (ranges == null) {
            return List.of();
        }
        Long from = ranges.floorKey(start);
        List<Entry> found = new ArrayList<>();
        for (Entry e : ranges.tailMap(from != null ? from : start, true).values()) {
            if (e.start >= end) {
                break;
            }
            if (e.end() > start) {
                found.add(e);
            }
        }
        return found;
    }

    /**
     * {@code segment} grown over the cached registrations of {@code group} it overlaps or touches, as long as the
     * span stays within the cache's bound; guarded by this.
     */
    private MemorySegment spanWithNeighbours(Group group, MemorySegment segment) {
        TreeMap<Long, Entry> ranges = groups.get(group);
        if (ranges == null || segment.byteSize() >= maxBytes) {
            return segment;
        }
        MemorySegment span = segment;
        Long from = ranges.floorKey(segment.address());
        for (Entry e : ranges.tailMap(from != null ? from : segment.address(), true).values()) {
            if (e.start > span.address() + span.byteSize()) {
                break; // disjoint ranges in address order: none further touches the span
            }
            if (e.end() < span.address()) {
                continue;
            }
            MemorySegment grown = Spans.union(span, e.registration.segment());
            if (grown.byteSize() > maxBytes) {
                break;
            }
            span = grown;
        }
        return span;
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
            if ((invalidate || !e.group.scope().isAlive()) && !e.retired) {
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
        for (Iterator<Entry> it = lru.keySet().iterator(); it.hasNext() && seen < limit; seen++) {
            Entry e = it.next();
            if (!e.group.scope().isAlive()) {
                it.remove();
                dropFromRanges(e);
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
            for (Iterator<Entry> it = lru.keySet().iterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (e.group.scope().equals(scope)) {
                    it.remove();
                    dropFromRanges(e);
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
        for (Iterator<Entry> it = lru.keySet().iterator(); it.hasNext() && cachedBytes + size > maxBytes; ) {
            Entry e = it.next();
            if (e.uses == 0) {
                it.remove();
                dropFromRanges(e);
                evicted.add(e);
            }
        }
        return cachedBytes + size <= maxBytes;
    }

    /** Takes a cached entry out of the cache for good (deregistered when no call uses it); guarded by this. */
    private void drop(Entry e) {
        lru.remove(e);
        dropFromRanges(e);
    }

    /** {@link #drop} but for the access-order map, which the caller's iterator leaves; guarded by this. */
    private void dropFromRanges(Entry e) {
        TreeMap<Long, Entry> ranges = groups.get(e.group);
        if (ranges != null && ranges.get(e.start) == e) {
            ranges.remove(e.start);
            if (ranges.isEmpty()) {
                groups.remove(e.group);
            }
        }
        if (e.counted) {
            e.counted = false;
            cachedBytes -= e.size;
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
            for (Entry e : lru.keySet()) {
                e.counted = false;
                e.retired = true;
                if (e.uses == 0) {
                    dead.add(e);
                }
            }
            lru.clear();
            groups.clear();
            cachedBytes = 0;
        }
        deregisterAll(dead);
    }

    /** @return bytes held by cached registrations (not counting calls' own) */
    synchronized long cachedBytes() {
        return cachedBytes;
    }

    synchronized int size() {
        return lru.size();
    }

    /** @return misses whose registration replaced cached ones it overlapped (merged with them) */
    synchronized long merges() {
        return merges;
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
