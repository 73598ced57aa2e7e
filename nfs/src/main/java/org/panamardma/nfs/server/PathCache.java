package org.panamardma.nfs.server;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the server remembers of where files are: a file (inode number and generation) to its path from the
 * export's root, bounded in entries and in characters, the least recently used entry going first when either bound
 * is reached. Evicting one entry at a time keeps the paths of the files in use: clearing the whole cache (as
 * 5c5f9a1 did) made every client's next call of every file walk the tree again.
 */
final class PathCache {
    /** A file as its handle names it. */
    record Key(long ino, int generation) {}

    private final int maxEntries;
    private final long maxChars;
    private final LinkedHashMap<Key, String> paths = new LinkedHashMap<>(256, 0.75f, true);
    private long chars;

    PathCache(int maxEntries, long maxChars) {
        this.maxEntries = maxEntries;
        this.maxChars = maxChars;
    }

    synchronized String get(Key key) {
        return paths.get(key);
    }

    synchronized void put(Key key, String rel) {
        String old = paths.put(key, rel);
        chars += rel.length() - (old == null ? 0 : old.length());
        Iterator<Map.Entry<Key, String>> eldest = paths.entrySet().iterator();
        while ((paths.size() > maxEntries || chars > maxChars) && eldest.hasNext()) {
            Map.Entry<Key, String> e = eldest.next();
            if (e.getKey().equals(key) && paths.size() == 1) {
                break; // the entry just put stays, whatever its length
            }
            chars -= e.getValue().length();
            eldest.remove();
        }
    }

    synchronized void remove(Key key) {
        String old = paths.remove(key);
        if (old != null) {
            chars -= old.length();
        }
    }

    /** Removes {@code key} only if it still maps to {@code rel}. */
    synchronized void remove(Key key, String rel) {
        if (rel.equals(paths.get(key))) {
            remove(key);
        }
    }

    synchronized int size() {
        return paths.size();
    }

    synchronized long chars() {
        return chars;
    }
}
