package org.panamardma.nfs.server;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.NfsStat3;

/**
 * One exported directory tree, seen only through file descriptors: the export's root is opened once, every other
 * file is reached from it with {@code openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
 * RESOLVE_NO_XDEV)} and then used through its descriptor ({@link Node}), so nothing a client sends, and nothing a
 * local user changes meanwhile (a directory swapped for a symbolic link), can take the server outside the export.
 *
 * <p>Names and paths are byte strings: a Java {@code String} here holds one byte per {@code char} (ISO-8859-1), so
 * that names that are not UTF-8 go to the disk and back unchanged.
 *
 * <p>File handles ({@link FileHandles}) are resolved through a cache of inode to path ({@link PathCache}, least
 * recently used out first), checked on every use against the inode number and generation of what the path leads to;
 * a miss (after a restart, a RENAME of a directory above) walks down from the root, first along the handle's hints,
 * then, if that fails (the file's directory was moved), through the whole tree, within a budget of
 * {@value #WALK_BUDGET} directory entries. What a handle costs is bounded: at most {@value #WALKERS} walks run at
 * once (a call waits at most the walk wait for one, then NFS3ERR_JUKEBOX), and a handle searched for in vain is
 * answered NFS3ERR_STALE without a walk for a while ({@link StaleHandles}).
 */
final class ExportFs implements AutoCloseable {
    /** Directory entries a handle resolution may list before answering NFS3ERR_STALE. */
    static final int WALK_BUDGET = 100_000;
    /** The most paths remembered; beyond, the least recently used go (resolution still works, by walking). */
    static final int MAX_CACHED = 100_000;
    /** The most characters of paths remembered, likewise (bounds the cache's memory whatever the names' lengths). */
    static final long MAX_CACHED_CHARS = 16L << 20;
    /** Walks of the tree running at once, at most (each lists up to {@value #WALK_BUDGET} entries). */
    static final int WALKERS = 2;
    /** Handles searched for in vain that are remembered, and for how long. */
    static final int MAX_STALE = 10_000;

    static final java.time.Duration STALE_TTL = java.time.Duration.ofSeconds(60);
    /** The longest path from the export's root the server opens: PATH_MAX - 1 (a longer one is NAMETOOLONG). */
    static final int MAX_PATH = 4095;

    private final String displayPath;
    private final int rootFd;
    private final Stat rootStat;
    private final FileHandles handles;
    private final long fsid;
    private final FileHandle3 rootHandle;
    private final PathCache paths;
    private final GenerationSource generations;
    private final HandleResolver resolver;
    private final java.util.concurrent.atomic.LongAdder commits = new java.util.concurrent.atomic.LongAdder();
    private final OpenFiles files = new OpenFiles(this::openForIo);

    /**
     * A file of the export, held open ({@code O_PATH}) while a procedure uses it; close it after.
     *
     * @param fd an {@code O_PATH | O_NOFOLLOW} descriptor of the file
     * @param rel its path from the export's root ("" for the root), as a byte string
     * @param stat its status when opened
     * @param handle its handle, decoded
     */
    record Node(int fd, String rel, Stat stat, FileHandles.Decoded handle) implements AutoCloseable {
        @Override
        public void close() {
            Posix.close(fd);
        }

        boolean isRoot() {
            return handle.depth() == 0;
        }
    }

    private ExportFs(
            String displayPath,
            int rootFd,
            Stat rootStat,
            FileHandles handles,
            int maxCached,
            GenerationSource generations) {
        this.paths = new PathCache(maxCached, MAX_CACHED_CHARS);
        this.generations = generations;
        this.displayPath = displayPath;
        this.rootFd = rootFd;
        this.rootStat = rootStat;
        this.handles = handles;
        this.fsid = Integer.toUnsignedLong(handles.exportId());
        this.rootHandle = handles.encode(0, rootStat.ino(), rootStat.generation(), new byte[0]);
        this.resolver = new HandleResolver(this, rootFd, rootStat, handles, paths);
    }

    /**
     * Opens an export.
     *
     * @param root the directory to export
     * @param secret the server's secret, for the handles' MAC
     * @throws PosixException if {@code root} is not an accessible directory
     * @throws GenerationSource.Unsuitable if its file system gives no way to tell a reused inode number apart
     */
    static ExportFs open(Path root, byte[] secret) throws PosixException, GenerationSource.Unsuitable {
        return open(root, secret, MAX_CACHED, null);
    }

    /**
     * {@link #open(Path, byte[])} remembering at most {@code maxCached} paths, with the generations from
     * {@code source} (null: the best the file system offers).
     */
    static ExportFs open(Path root, byte[] secret, int maxCached, GenerationSource source)
            throws PosixException, GenerationSource.Unsuitable {
        String absolute = root.toAbsolutePath().normalize().toString();
        int fd = Posix.openat(Posix.AT_FDCWD, bytes(absolute), Posix.O_PATH | Posix.O_DIRECTORY, 0);
        try {
            Stat stat = Posix.fstat(fd);
            GenerationSource chosen = source != null ? source : GenerationSource.choose(absolute, fd, stat);
            Stat identified = chosen.identify(fd, stat);
            return new ExportFs(absolute, fd, identified, new FileHandles(secret, absolute), maxCached, chosen);
        } catch (PosixException | GenerationSource.Unsuitable | RuntimeException e) {
            Posix.close(fd);
            throw e;
        }
    }

    /** {@return where the generations in this export's handles come from} */
    GenerationSource generationSource() {
        return generations;
    }

    /** Status of the file {@code fd} refers to, with its generation. */
    private Stat identify(int fd) throws PosixException {
        return generations.identify(fd, Posix.fstat(fd));
    }

    /**
     * Status of the entry {@code name} of directory {@code dirfd} (not following a symbolic link), with its
     * generation; where that needs the file itself, it is opened ({@code O_PATH}) for the moment.
     */
    Stat identifyAt(int dirfd, String name) throws PosixException {
        Stat s = Posix.statx(dirfd, name, Posix.AT_SYMLINK_NOFOLLOW);
        if (!generations.needsTheFile(s)) {
            return s;
        }
        int fd = Posix.openat2(dirfd, name, Posix.O_PATH | Posix.O_NOFOLLOW, 0, Posix.RESOLVE_CONFINED);
        try {
            Stat again = Posix.fstat(fd);
            if (again.ino() != s.ino()) {
                throw new PosixException(PosixException.ENOENT, "statx", ExportFs.display(name) + " changed");
            }
            return generations.identify(fd, again);
        } finally {
            Posix.close(fd);
        }
    }

    /** A Java (Unicode) string as the byte string of its UTF-8 encoding. */
    static String bytes(String unicode) {
        return new String(unicode.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    /** A byte string shown as UTF-8 (for log lines). */
    static String display(String byteString) {
        return new String(byteString.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    String path() {
        return displayPath;
    }

    long fsid() {
        return fsid;
    }

    FileHandle3 rootHandle() {
        return rootHandle;
    }

    FileHandles handles() {
        return handles;
    }

    Stat rootStat() {
        return rootStat;
    }

    @Override
    public void close() {
        files.close();
        Posix.close(rootFd);
    }

    static String join(String dir, String name) {
        return dir.isEmpty() ? name : dir + "/" + name;
    }

    static String openable(String rel) {
        return rel.isEmpty() ? "." : rel;
    }

    /** {@return the parent path of {@code rel} ("" for a top-level entry)} */
    static String parent(String rel) {
        int slash = rel.lastIndexOf('/');
        return slash < 0 ? "" : rel.substring(0, slash);
    }

    // ---- handles --------------------------------------------------------------------------------------------------

    /** The handle of a file of {@code stat} named {@code name} in {@code dir}, remembering its path. */
    FileHandle3 childHandle(Node dir, String name, Stat stat) {
        int depth = dir.handle().depth() + 1;
        if (depth > FileHandles.MAX_DEPTH || dir.rel().length() + 1 + name.length() > MAX_PATH) {
            return null;
        }
        remember(stat, join(dir.rel(), name));
        return handles.encode(depth, stat.ino(), stat.generation(), dir.handle().childHints());
    }

    /** The handle of {@code node} itself. */
    FileHandle3 handleOf(Node node) {
        FileHandles.Decoded d = node.handle();
        return handles.encode(d.depth(), d.ino(), d.generation(), d.hints());
    }

    private void remember(Stat stat, String rel) {
        remember(new PathCache.Key(stat.ino(), stat.generation()), rel);
    }

    void remember(PathCache.Key key, String rel) {
        paths.put(key, rel);
        resolver.seen(key);
    }

    /** Forgets the path of a file that was removed or renamed, and closes its I/O descriptors. */
    void forget(Stat stat) {
        paths.remove(new PathCache.Key(stat.ino(), stat.generation()));
        files.forget(stat);
    }

    /** How long a call waits for one of the {@value #WALKERS} walks before it is answered NFS3ERR_JUKEBOX. */
    void walkWait(java.time.Duration wait) {
        resolver.walkWait(wait);
    }

    /** {@return directory entries listed by walks so far} */
    long walkedEntries() {
        return resolver.walkedEntries();
    }

    /** {@return paths remembered now} */
    int cachedPaths() {
        return paths.size();
    }

    /**
     * Opens the file a handle names. The server does this as itself ({@link CallerThreads#asServer}): a handle
     * gives access to its file whatever the directories above it allow (knfsd's {@code no_subtree_check}, the
     * default), and the walk after a restart lists directories the caller may not read.
     *
     * @throws NfsError BADHANDLE for a handle this server did not issue, STALE for a file no longer in the export
     */
    Node resolve(FileHandle3 fh) throws NfsError {
        Node prepared = Preresolved.take(this, fh);
        return prepared != null ? prepared : CallerThreads.asServer(() -> resolver.resolve(fh));
    }

    /** Resolves {@code fh} in a call's prelude, as the server, for this call's {@link #resolve} to take. */
    CallerThreads.Prepared prepare(FileHandle3 fh) {
        return Preresolved.prepare(this, fh, resolver::resolve);
    }

    /** The export's root, opened. */
    Node root() throws NfsError {
        return resolve(rootHandle);
    }

    /** Opens {@code rel} and checks it is the file of {@code d}; null if it is not (or cannot be opened). */
    Node open(String rel, FileHandles.Decoded d) {
        int fd;
        try {
            fd = Posix.openat2(rootFd, openable(rel), Posix.O_PATH | Posix.O_NOFOLLOW, 0, Posix.RESOLVE_CONFINED);
        } catch (PosixException e) {
            return null;
        }
        try {
            Stat stat = identify(fd);
            if (stat.ino() == d.ino() && stat.generation() == d.generation() && stat.sameDevice(rootStat)) {
                int keep = fd;
                fd = -1;
                return new Node(keep, rel, stat, d);
            }
            return null;
        } catch (PosixException e) {
            return null;
        } finally {
            Posix.close(fd);
        }
    }

    // ---- lookups --------------------------------------------------------------------------------------------------

    /**
     * Opens the entry {@code name} of directory {@code dir}: "." is the directory, ".." its parent (the root's is the
     * root: nothing above the export is ever reachable).
     *
     * @throws NfsError NOENT, NOTDIR, ACCES (an entry on another file system), or from {@link #resolve}
     */
    Node lookup(Node dir, String name) throws NfsError {
        if (!dir.stat().isDirectory()) {
            throw new NfsError(NfsStat3.NFS3ERR_NOTDIR, "LOOKUP in a file that is not a directory");
        }
        if (name.equals(".")) {
            return reopen(dir);
        }
        if (name.equals("..")) {
            if (dir.isRoot()) {
                return reopen(dir);
            }
            return CallerThreads.asServer(() -> parentOf(dir));
        }
        return child(dir, name);
    }

    /** The parent of {@code dir} (not the root), opened by its path from the root, as the server. */
    private Node parentOf(Node dir) throws NfsError {
        String parentRel = parent(dir.rel());
        int depth = dir.handle().depth() - 1;
        int fd;
        try {
            fd = Posix.openat2(rootFd, openable(parentRel), Posix.O_PATH | Posix.O_NOFOLLOW, 0, Posix.RESOLVE_CONFINED);
        } catch (PosixException e) {
            throw new NfsError(NfsStat3.NFS3ERR_STALE, "the parent of " + display(dir.rel()) + ": " + e.getMessage());
        }
        try {
            Stat stat = identify(fd);
            FileHandles.Decoded d = new FileHandles.Decoded(
                    depth, stat.ino(), stat.generation(), dir.handle().parentHints());
            Node node = new Node(fd, parentRel, stat, d);
            fd = -1;
            return node;
        } catch (PosixException e) {
            throw NfsError.of(e);
        } finally {
            Posix.close(fd);
        }
    }

    /**
     * The entry {@code name} of {@code dir}, opened as the acting identity: the kernel requires search permission
     * on {@code dir}, as for a local lookup.
     */
    private Node child(Node dir, String name) throws NfsError {
        Names.check(name);
        checkPathLength(dir, name); // its handle could not be resolved again (openat2 takes at most PATH_MAX)
        int fd;
        try {
            fd = Posix.openat2(dir.fd(), name, Posix.O_PATH | Posix.O_NOFOLLOW, 0, Posix.RESOLVE_CONFINED);
        } catch (PosixException e) {
            if (e.errno() == PosixException.EXDEV) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, display(name) + " is on another file system");
            }
            throw NfsError.of(e);
        }
        try {
            Stat stat = identify(fd);
            int depth = dir.handle().depth() + 1;
            if (depth > FileHandles.MAX_DEPTH) {
                throw new NfsError(NfsStat3.NFS3ERR_NAMETOOLONG, "deeper than " + FileHandles.MAX_DEPTH);
            }
            FileHandles.Decoded d = new FileHandles.Decoded(
                    depth,
                    stat.ino(),
                    stat.generation(),
                    trimmedHints(dir.handle().childHints(), depth));
            String rel = join(dir.rel(), name);
            remember(stat, rel);
            Node node = new Node(fd, rel, stat, d);
            fd = -1;
            return node;
        } catch (PosixException e) {
            throw NfsError.of(e);
        } finally {
            Posix.close(fd);
        }
    }

    /**
     * Refuses a name that would make a path from the export's root longer than {@link #MAX_PATH}, before a file of
     * that name is made (its handle could not be resolved again).
     */
    static void checkPathLength(Node dir, String name) throws NfsError {
        if (dir.rel().length() + 1 + name.length() > MAX_PATH) {
            throw new NfsError(
                    NfsStat3.NFS3ERR_NAMETOOLONG, "a path from the export's root longer than " + MAX_PATH + " bytes");
        }
    }

    private static byte[] trimmedHints(byte[] hints, int depth) {
        int n = Math.min(hints.length, Math.min(FileHandles.MAX_HINTS, Math.max(0, depth - 1)));
        return n == hints.length ? hints : java.util.Arrays.copyOf(hints, n);
    }

    /** A second descriptor of the same file (the caller closes both), opened by the server. */
    Node reopen(Node node) throws NfsError {
        return CallerThreads.asServer(() -> reopenAsServer(node));
    }

    private Node reopenAsServer(Node node) throws NfsError {
        try {
            int fd = Posix.openat2(
                    rootFd, openable(node.rel()), Posix.O_PATH | Posix.O_NOFOLLOW, 0, Posix.RESOLVE_CONFINED);
            Stat stat = identify(fd);
            if (stat.ino() != node.stat().ino()) {
                Posix.close(fd);
                throw new NfsError(NfsStat3.NFS3ERR_STALE, display(node.rel()) + " changed");
            }
            return new Node(fd, node.rel(), stat, node.handle());
        } catch (PosixException e) {
            throw NfsError.of(e);
        }
    }

    /** Status of the entry {@code name} of {@code dir} (not following a symbolic link), with its generation. */
    Stat statAt(Node dir, String name) throws PosixException {
        return identifyAt(dir.fd(), name);
    }

    /** Fresh status of {@code node}. */
    Stat stat(Node node) throws PosixException {
        return Posix.fstat(node.fd());
    }

    /**
     * Opens {@code node}'s file for I/O (through {@code /proc/self/fd}, so exactly that file), as the server: only
     * once the server has decided the caller may (knfsd opens without the kernel's check likewise, so that its owner
     * allowance works: {@link Permissions}). Reads and writes through the descriptor then run as the caller.
     *
     * @param flags {@link Posix#O_RDONLY}, {@link Posix#O_WRONLY} or {@link Posix#O_RDWR}, plus others
     */
    int openForIo(Node node, int flags) throws PosixException {
        return CallerThreads.asServer(
                () -> Posix.openat(Posix.AT_FDCWD, Posix.procPath(node.fd()), flags | Posix.O_NOCTTY, 0));
    }

    /**
     * A descriptor of {@code node}'s file for READ, WRITE or COMMIT, from the export's cache of open files
     * ({@link OpenFiles}; opened by {@link #openForIo} on a miss). Only once the caller's permission was checked.
     */
    OpenFiles.Lease ioFile(Node node, OpenFiles.Access access) throws PosixException {
        return files.open(node, access);
    }

    /** {@return the export's cache of open files} */
    OpenFiles openFiles() {
        return files;
    }

    /**
     * Commits {@code node}'s metadata to stable storage, as knfsd's {@code commit_metadata} for a {@code sync}
     * export: {@code fsync} of a regular file or directory (opened by the server: the caller may not read it);
     * a symbolic link or special file cannot be opened for that, so the file system is synced ({@code syncfs}).
     */
    void commit(Node node) throws PosixException {
        commits.increment();
        Stat s = node.stat();
        CallerThreads.asServer(() -> {
            int fd;
            if (s.isRegular() || s.isDirectory()) {
                fd = Posix.openat(
                        Posix.AT_FDCWD,
                        Posix.procPath(node.fd()),
                        Posix.O_RDONLY | Posix.O_NOCTTY | (s.isDirectory() ? Posix.O_DIRECTORY : Posix.O_NONBLOCK),
                        0);
            } else {
                fd = Posix.openat(Posix.AT_FDCWD, Posix.procPath(rootFd), Posix.O_RDONLY | Posix.O_DIRECTORY, 0);
            }
            try {
                if (s.isRegular() || s.isDirectory()) {
                    Posix.fsync(fd);
                } else {
                    Posix.syncfs(fd);
                }
            } finally {
                Posix.close(fd);
            }
            return null;
        });
    }

    /** {@return metadata commits so far} */
    long commits() {
        return commits.sum();
    }

    boolean sameFileSystem(Stat stat) {
        return stat.sameDevice(rootStat);
    }

    @Override
    public String toString() {
        return "export " + displayPath;
    }
}
