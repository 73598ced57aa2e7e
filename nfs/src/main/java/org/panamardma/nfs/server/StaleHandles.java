package org.panamardma.nfs.server;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Files the export was searched for in vain (the negative cache): a handle of a removed file costs one walk of the
 * tree, then is answered NFS3ERR_STALE at once for {@code ttl}, instead of a walk of up to
 * {@link ExportFs#WALK_BUDGET} entries on every call a client repeats. An entry goes when the server sees the file
 * again (a LOOKUP or READDIRPLUS finds it: it was moved into the export from outside), when its time is up, or when
 * the cache is full (the oldest first).
 */
final class StaleHandles {
    private final int maxEntries;
    private final long ttlNanos;
    private final LinkedHashMap<PathCache.Key, Long> since = new LinkedHashMap<>();

    StaleHandles(int maxEntries, java.time.Duration ttl) {
        this.maxEntries = maxEntries;
        this.ttlNanos = ttl.toNanos();
    }

    /** Whether {@code key} was searched for in vain less than the time to live ago. */
    synchronized boolean isStale(PathCache.Key key) {
        Long at = since.get(key);
        if (at == null) {
            return false;
        }
        if (System.nanoTime() - at > ttlNanos) {
            since.remove(key);
            return false;
        }
        return true;
    }

    synchronized void add(PathCache.Key key) {
        since.remove(key);
        since.put(key, System.nanoTime());
        Iterator<Map.Entry<PathCache.Key, Long>> oldest = since.entrySet().iterator();
        while (since.size() > maxEntries && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
    }

    synchronized void seen(PathCache.Key key) {
        since.remove(key);
    }

    synchronized int size() {
        return since.size();
    }
}
