package org.panamardma.nfs.server;

import java.io.IOException;

/**
 * Where the generation in a file handle comes from: the number that tells apart two files that had the same inode
 * number at different times, so that a handle of a removed file is NFS3ERR_STALE, never the file that took its inode
 * number (RFC 1813 section 2.5 promises clients this, knfsd keeps it with {@code i_generation}).
 * <ul>
 *   <li>{@link #BIRTH_TIME}: the birth time from {@code statx} (ext4 with 256-byte inodes, xfs, btrfs, tmpfs), which
 *       needs nothing but the status;
 *   <li>{@link #INODE_VERSION}: where there is no birth time, the generation the file system gives each inode when it
 *       makes it, read with {@code ioctl(FS_IOC_GETVERSION)} (ext2/3/4, xfs, btrfs): it needs the file opened, which
 *       is safe for regular files and directories only; a symbolic link, FIFO, socket or device file gets one from
 *       its status change time instead (its handle goes stale when that changes: a rename or chown; never the other
 *       way, naming another file);
 *   <li>none: a file system with neither (9p, NFS, many FUSE ones) cannot be exported:
 *       {@link #choose} refuses it ({@link Unsuitable}).
 * </ul>
 */
enum GenerationSource {
    BIRTH_TIME,
    INODE_VERSION;

    /** The export's file system can tell a reused inode number from the file that had it in no way. */
    static final class Unsuitable extends IOException {
        private static final long serialVersionUID = 1L;

        Unsuitable(String message) {
            super(message);
        }
    }

    /**
     * The source for the export whose root is {@code rootFd} ({@code O_PATH}), of status {@code root}.
     *
     * @throws Unsuitable if the file system offers neither
     */
    static GenerationSource choose(String path, int rootFd, Stat root) throws Unsuitable {
        if (root.hasBtime()) {
            return BIRTH_TIME;
        }
        try {
            INODE_VERSION.identify(rootFd, root);
            return INODE_VERSION;
        } catch (PosixException e) {
            throw new Unsuitable("the file system of " + path + " reports neither birth times (statx) nor inode"
                    + " generations (FS_IOC_GETVERSION: " + e.getMessage() + "), so a handle of a removed file could"
                    + " name another file that takes its inode number; export a directory of ext4, xfs, btrfs or"
                    + " tmpfs");
        }
    }

    /** Whether the generation of {@code s} needs the file itself (not only its status). */
    boolean needsTheFile(Stat s) {
        return this == INODE_VERSION && !s.hasBtime() && (s.isRegular() || s.isDirectory());
    }

    /**
     * {@code s} (the status of the file {@code fd} refers to, an {@code O_PATH} descriptor) with its generation.
     *
     * @throws PosixException if the file cannot be opened for it, or has none
     */
    Stat identify(int fd, Stat s) throws PosixException {
        if (this == BIRTH_TIME || s.hasBtime()) {
            return s;
        }
        if (!s.isRegular() && !s.isDirectory()) {
            // cannot be opened safely (a FIFO blocks, a device runs its driver, a link or socket cannot be)
            return s.withInodeVersion((int) (s.ctimeSec() * 1_000_000_007L + s.ctimeNsec()));
        }
        int io = CallerThreads.asServer(() -> Posix.openat(
                Posix.AT_FDCWD,
                Posix.procPath(fd),
                Posix.O_RDONLY | Posix.O_NONBLOCK | Posix.O_NOCTTY | (s.isDirectory() ? Posix.O_DIRECTORY : 0),
                0));
        try {
            return s.withInodeVersion(Posix.inodeVersion(io));
        } finally {
            Posix.close(io);
        }
    }
}
