package org.panamardma.nfs.server;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.NfsStat3;

/**
 * Finds the file a handle names ({@link ExportFs#resolve}): from the path cache when it is there, else by walking
 * the export along the handle's hints, then breadth-first through the whole tree, within a budget of
 * {@value ExportFs#WALK_BUDGET} directory entries. What that costs is bounded: at most {@value ExportFs#WALKERS}
 * walks at once (a call waits at most the walk wait for one, then NFS3ERR_JUKEBOX), and a handle searched for in
 * vain is answered NFS3ERR_STALE without a walk for a while ({@link StaleHandles}).
 */
final class HandleResolver {
    private final ExportFs fs;
    private final int rootFd;
    private final Stat rootStat;
    private final FileHandles handles;
    private final PathCache paths;
    private final StaleHandles stale = new StaleHandles(ExportFs.MAX_STALE, ExportFs.STALE_TTL);
    private final Semaphore walkers = new Semaphore(ExportFs.WALKERS, true);
    private volatile java.time.Duration walkWait = java.time.Duration.ofSeconds(5);
    /** Directory entries listed by walks so far (what stale and moved handles cost). */
    private final LongAdder walked = new LongAdder();

    HandleResolver(ExportFs fs, int rootFd, Stat rootStat, FileHandles handles, PathCache paths) {
        this.fs = fs;
        this.rootFd = rootFd;
        this.rootStat = rootStat;
        this.handles = handles;
        this.paths = paths;
    }

    void walkWait(java.time.Duration wait) {
        this.walkWait = wait;
    }

    long walkedEntries() {
        return walked.sum();
    }

    /** A file of {@code key} was found (or made): it is no longer stale. */
    void seen(PathCache.Key key) {
        stale.seen(key);
    }

    /** Opens the file a handle names (see {@link ExportFs#resolve}); run as the server. */
    ExportFs.Node resolve(FileHandle3 fh) throws NfsError {
        FileHandles.Decoded d = handles.decode(fh);
        if (d.depth() == 0) {
            if (d.ino() != rootStat.ino() || d.generation() != rootStat.generation()) {
                throw new NfsError(NfsStat3.NFS3ERR_STALE, "root handle of another directory");
            }
            ExportFs.Node root = fs.open("", d);
            if (root == null) {
                throw new NfsError(NfsStat3.NFS3ERR_STALE, "the export's root cannot be opened");
            }
            return root;
        }
        PathCache.Key key = new PathCache.Key(d.ino(), d.generation());
        String rel = paths.get(key);
        if (rel != null) {
            ExportFs.Node node = fs.open(rel, d);
            if (node != null) {
                return node;
            }
            paths.remove(key, rel);
        }
        if (stale.isStale(key)) {
            throw new NfsError(
                    NfsStat3.NFS3ERR_STALE, "no file of inode " + d.ino() + " in the export (searched" + " lately)");
        }
        boolean permitted;
        try {
            permitted = walkers.tryAcquire(walkWait.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            permitted = false;
        }
        if (!permitted) {
            throw new NfsError(NfsStat3.NFS3ERR_JUKEBOX, "every walk of the tree is taken");
        }
        int[] budget = {ExportFs.WALK_BUDGET};
        try {
            rel = walk("", 0, d, budget);
            if (rel == null) {
                rel = search(d, budget);
            }
        } finally {
            walkers.release();
            walked.add(ExportFs.WALK_BUDGET - Math.max(0, budget[0]));
        }
        if (rel != null) {
            ExportFs.Node node = fs.open(rel, d);
            if (node != null) {
                fs.remember(key, rel);
                return node;
            }
        }
        stale.add(key);
        throw new NfsError(NfsStat3.NFS3ERR_STALE, "no file of inode " + d.ino() + " in the export");
    }

    /** Opens the directory {@code rel} for reading its entries; null if it cannot be. */
    private int openDirectory(String rel) {
        try {
            return Posix.openat2(
                    rootFd, ExportFs.openable(rel), Posix.O_RDONLY | Posix.O_DIRECTORY, 0, Posix.RESOLVE_CONFINED);
        } catch (PosixException e) {
            return -1;
        }
    }

    /** What a visitor of a directory's entries says after each one. */
    private enum Next {
        GO_ON,
        STOP
    }

    @FunctionalInterface
    private interface EntryVisitor {
        Next visit(Dirent entry);
    }

    /**
     * Lists the entries of {@code dfd} but "." and "..", each costing one of {@code budget}, to {@code visitor}
     * until it says STOP or the directory ends.
     *
     * @return false if the budget ran out first
     */
    private static boolean list(int dfd, MemorySegment buf, int[] budget, EntryVisitor visitor) throws PosixException {
        while (true) {
            long n = Posix.getdents64(dfd, buf);
            if (n == 0) {
                return true;
            }
            for (long at = 0; at < n; ) {
                Dirent e = Dirent.at(buf, at);
                at += e.reclen();
                if (e.isDotOrDotDot()) {
                    continue;
                }
                if (--budget[0] < 0) {
                    return false;
                }
                if (visitor.visit(e) == Next.STOP) {
                    return true;
                }
            }
        }
    }

    /** Whether {@code rel} is the file of {@code d}. */
    private boolean isTheFile(String rel, FileHandles.Decoded d) {
        try (ExportFs.Node node = fs.open(rel, d)) {
            return node != null;
        }
    }

    private static boolean mayBeDirectory(Dirent e) {
        return e.type() == Posix.DT_DIR || e.type() == 0;
    }

    /** Walks down along the handle's hints; returns the path of the file, or null. */
    private String walk(String dirRel, int level, FileHandles.Decoded d, int[] budget) {
        int dfd = openDirectory(dirRel);
        if (dfd < 0) {
            return null;
        }
        List<String> subdirectories = new ArrayList<>();
        String[] found = {null};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(32 << 10, 8);
            boolean last = level == d.depth() - 1;
            boolean within = list(dfd, buf, budget, e -> {
                if (last) {
                    if (e.ino() == d.ino() && isTheFile(ExportFs.join(dirRel, e.name()), d)) {
                        found[0] = ExportFs.join(dirRel, e.name());
                        return Next.STOP;
                    }
                } else if (mayBeDirectory(e)
                        && (level >= d.hints().length || FileHandles.hint(e.ino()) == d.hints()[level])) {
                    subdirectories.add(e.name());
                }
                return Next.GO_ON;
            });
            if (!within) {
                return null;
            }
        } catch (PosixException e) {
            return null;
        } finally {
            Posix.close(dfd);
        }
        if (found[0] != null) {
            return found[0];
        }
        for (String sub : subdirectories) {
            String r = walk(ExportFs.join(dirRel, sub), level + 1, d, budget);
            if (r != null || budget[0] < 0) {
                return r;
            }
        }
        return null;
    }

    /** Breadth-first through the whole export, whatever the hints say; returns the path of the file, or null. */
    private String search(FileHandles.Decoded d, int[] budget) {
        ArrayDeque<String> queue = new ArrayDeque<>();
        queue.add("");
        long[] queuedChars = {0};
        String[] found = {null};
        boolean[] tooWide = {false};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(32 << 10, 8);
            while (!queue.isEmpty() && budget[0] > 0) {
                String dirRel = queue.poll();
                queuedChars[0] -= dirRel.length();
                int dfd = openDirectory(dirRel);
                if (dfd < 0) {
                    continue;
                }
                try {
                    boolean within = list(dfd, buf, budget, e -> {
                        String rel = ExportFs.join(dirRel, e.name());
                        if (e.ino() == d.ino() && isTheFile(rel, d)) {
                            found[0] = rel;
                            return Next.STOP;
                        }
                        if (mayBeDirectory(e) && rel.length() <= ExportFs.MAX_PATH) {
                            queuedChars[0] += rel.length();
                            if (queuedChars[0] > ExportFs.MAX_CACHED_CHARS) {
                                tooWide[0] = true; // a tree too wide to search within bounded memory
                                return Next.STOP;
                            }
                            queue.add(rel);
                        }
                        return Next.GO_ON;
                    });
                    if (!within || tooWide[0]) {
                        return null;
                    }
                    if (found[0] != null) {
                        return found[0];
                    }
                } catch (PosixException e) {
                    // unreadable directory: go on with the others
                } finally {
                    Posix.close(dfd);
                }
            }
        }
        return null;
    }
}
