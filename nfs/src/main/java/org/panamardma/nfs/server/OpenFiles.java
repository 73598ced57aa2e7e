package org.panamardma.nfs.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The descriptors READ, WRITE and COMMIT do their I/O through, kept open between calls, as knfsd keeps the files it
 * opened in its file cache (fs/nfsd/filecache.c) rather than opening one per call. Without it every such call opened
 * the file anew through {@code /proc/self/fd}, as the server, and closed it: on the testbed 1.3 ms of a 256 KiB WRITE's
 * 8 system-call milliseconds went to that {@code openat} alone.
 *
 * <p>What a call is allowed is decided before, and on every call, exactly as without the cache: the handle is
 * resolved inside the export ({@link ExportFs#resolve}), and the caller's permission checked on the fresh status
 * ({@link Permissions}). A cached descriptor is only what the call then reads or writes through, found by the file's
 * identity (inode number and generation: the same file, never a new one on a reused inode number) and the access.
 * What an open would have refused and a descriptor opened earlier would not is checked by the procedures: an
 * immutable or append-only file ({@link Stat#writeProtected}).
 *
 * <p>Bounds: at most {@value #MAX_OPEN} descriptors (more only while more calls use distinct files at that moment,
 * and the server runs at most as many calls as it has caller threads); a descriptor unused for {@link #IDLE} is
 * closed (knfsd's laundrette closes NFSv3's files after 2 s likewise), so a file removed by someone else does not
 * keep its space for long; and a REMOVE or RENAME through this server closes the file's descriptors at once
 * ({@link #forget}). A client can make the server hold at most {@value #MAX_OPEN} descriptors, each for at most
 * {@link #IDLE} after its last call.
 */
final class OpenFiles implements AutoCloseable {
    /** The most descriptors kept; beyond, the least recently used idle one is closed. */
    static final int MAX_OPEN = 256;
    /** How long an unused descriptor stays open. */
    static final Duration IDLE = Duration.ofSeconds(2);

    /** How a file is opened for its I/O. */
    enum Access {
        /** READ and COMMIT: {@code O_RDONLY}. */
        READ(Posix.O_RDONLY),
        /** WRITE: {@code O_WRONLY}. */
        WRITE(Posix.O_WRONLY);

        final int flags;

        Access(int flags) {
            this.flags = flags;
        }
    }

    /** Opens a file for I/O as the server ({@link ExportFs#openForIo}). */
    @FunctionalInterface
    interface Opener {
        int open(ExportFs.Node node, int flags) throws PosixException;
    }

    private record Key(long ino, int generation, Access access) {}

    private static final class Entry {
        final int fd;
        int users;
        long lastUsed;
        boolean dropped;

        Entry(int fd) {
            this.fd = fd;
        }
    }

    /** A descriptor lent to one call: close it when the call is done with it (the descriptor stays open, cached). */
    final class Lease implements AutoCloseable {
        private final Entry entry;
        private boolean closed;

        private Lease(Entry entry) {
            this.entry = entry;
        }

        int fd() {
            return entry.fd;
        }

        @Override
        public void close() {
            boolean closeNow;
            synchronized (OpenFiles.this) {
                if (closed) {
                    return;
                }
                closed = true;
                entry.users--;
                entry.lastUsed = System.nanoTime();
                closeNow = entry.dropped && entry.users == 0;
            }
            if (closeNow) {
                Posix.close(entry.fd);
            }
        }
    }

    private final Opener opener;
    private final int maxOpen;
    private final long idleNanos;
    /** In the order of use, the least recently used first. Guarded by this. */
    private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);

    private final LongAdder opens = new LongAdder();
    private final LongAdder reuses = new LongAdder();
    private final long sweepMillis;
    /**
     * Started with the cache, by the thread that makes the server: not with the first descriptor kept, which a
     * caller thread keeps, and a thread inherits its starter's credentials (CallerThreads starts no thread).
     */
    private final Thread sweeper;

    private boolean closed;

    OpenFiles(Opener opener) {
        this(opener, MAX_OPEN, IDLE);
    }

    OpenFiles(Opener opener, int maxOpen, Duration idle) {
        if (maxOpen < 1 || idle.isNegative() || idle.isZero()) {
            throw new IllegalArgumentException(maxOpen + " descriptors, idle " + idle);
        }
        this.opener = opener;
        this.maxOpen = maxOpen;
        this.idleNanos = idle.toNanos();
        this.sweepMillis = Math.max(1, idle.toMillis() / 2);
        this.sweeper = Thread.ofPlatform().daemon().name("nfs-open-files").start(this::sweep);
    }

    /**
     * A descriptor of {@code node}'s file for {@code access}: the cached one, or one opened now and cached.
     *
     * @throws PosixException if the file cannot be opened
     */
    Lease open(ExportFs.Node node, Access access) throws PosixException {
        Key key = new Key(node.stat().ino(), node.stat().generation(), access);
        synchronized (this) {
            Entry e = entries.get(key);
            if (e != null) {
                e.users++;
                reuses.increment();
                return new Lease(e);
            }
        }
        int fd = opener.open(node, access.flags); // outside the lock: an open can take long
        opens.increment();
        List<Entry> evicted = new ArrayList<>(1);
        Lease lease;
        synchronized (this) {
            Entry e = entries.get(key);
            if (e != null) { // another call opened it meanwhile: use that one
                e.users++;
                lease = new Lease(e);
            } else {
                e = new Entry(fd);
                e.users = 1;
                e.dropped = closed; // after close(): lent once, closed when given back
                if (!closed) {
                    entries.put(key, e);
                    evictBeyond(maxOpen, evicted);
                }
                lease = new Lease(e);
                fd = -1;
            }
        }
        Posix.close(fd);
        evicted.forEach(x -> Posix.close(x.fd));
        return lease;
    }

    /** Closes the descriptors of a file that was removed or renamed (now, or when the calls using them are done). */
    void forget(Stat stat) {
        List<Entry> idle = new ArrayList<>(2);
        synchronized (this) {
            for (Access a : Access.values()) {
                Entry e = entries.remove(new Key(stat.ino(), stat.generation(), a));
                if (e != null) {
                    dropLocked(e, idle);
                }
            }
        }
        idle.forEach(x -> Posix.close(x.fd));
    }

    /** {@return files opened so far} (each open is a miss of the cache) */
    long opens() {
        return opens.sum();
    }

    /** {@return calls that used a cached descriptor} */
    long reuses() {
        return reuses.sum();
    }

    /** {@return descriptors open now} */
    synchronized int size() {
        return entries.size();
    }

    /** Evicts the least recently used idle entries until at most {@code limit} are left (or only busy ones). */
    private void evictBeyond(int limit, List<Entry> idle) {
        Iterator<Entry> it = entries.values().iterator();
        while (entries.size() > limit && it.hasNext()) {
            Entry e = it.next();
            if (e.users == 0) {
                it.remove();
                dropLocked(e, idle);
            }
        }
    }

    private static void dropLocked(Entry e, List<Entry> idle) {
        e.dropped = true;
        if (e.users == 0) {
            idle.add(e);
        }
    }

    private void sweep() {
        while (true) {
            try {
                Thread.sleep(sweepMillis);
            } catch (InterruptedException e) {
                return;
            }
            List<Entry> idle = new ArrayList<>();
            synchronized (this) {
                if (closed) {
                    return;
                }
                long now = System.nanoTime();
                Iterator<Map.Entry<Key, Entry>> it = entries.entrySet().iterator();
                while (it.hasNext()) {
                    Entry e = it.next().getValue();
                    if (e.users == 0 && now - e.lastUsed >= idleNanos) {
                        it.remove();
                        dropLocked(e, idle);
                    }
                }
            }
            idle.forEach(x -> Posix.close(x.fd));
        }
    }

    /** Closes every descriptor: the idle ones now, the lent ones when their calls give them back. */
    @Override
    public void close() {
        List<Entry> idle = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (Entry e : entries.values()) {
                dropLocked(e, idle);
            }
            entries.clear();
        }
        sweeper.interrupt();
        idle.forEach(x -> Posix.close(x.fd));
    }
}
