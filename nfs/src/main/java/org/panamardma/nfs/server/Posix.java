package org.panamardma.nfs.server;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;

/**
 * The Linux system calls the server's file system layer needs, bound with the FFM API to the C library. They are
 * the {@code *at} family, relative to directory file descriptors, because that is what keeps a server inside its
 * export without races: every path a client names is resolved by {@code openat2(2)} with {@code RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV} (Linux 5.6), so the kernel itself refuses
 * {@code ..} above the export, any symbolic link on the way (also one swapped in by a local user between two calls)
 * and mount points; then the operation uses the file descriptor, never the path again. Java's NIO follows symbolic
 * links in intermediate path components and has no {@code openat}, which is why this is not NIO.
 *
 * <p>Linux x86_64 and aarch64 (the flags and struct layouts used are the generic ones: {@code struct statx},
 * {@code struct open_how}, {@code struct linux_dirent64}, {@code struct statvfs} of LP64). Every call returns its
 * result or throws {@link PosixException} with the errno; none can crash the JVM (all memory is FFM segments of the
 * right size).
 */
final class Posix {
    static final int AT_FDCWD = -100;
    static final int AT_SYMLINK_NOFOLLOW = 0x100;
    static final int AT_REMOVEDIR = 0x200;
    static final int AT_SYMLINK_FOLLOW = 0x400;
    static final int AT_EMPTY_PATH = 0x1000;

    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_RDWR = 2;
    static final int O_CREAT = 0x40;
    static final int O_EXCL = 0x80;
    static final int O_NOCTTY = 0x100;
    static final int O_TRUNC = 0x200;
    static final int O_NONBLOCK = 0x800;
    static final int O_DIRECTORY = 0x10000;
    static final int O_NOFOLLOW = 0x20000;
    static final int O_CLOEXEC = 0x80000;
    static final int O_PATH = 0x200000;

    /** {@code struct open_how.resolve} bits (linux/openat2.h). */
    static final long RESOLVE_NO_XDEV = 0x01;

    static final long RESOLVE_NO_MAGICLINKS = 0x02;
    static final long RESOLVE_NO_SYMLINKS = 0x04;
    static final long RESOLVE_BENEATH = 0x08;
    /** What the server resolves every client path with: beneath the export, no links of any kind, no mounts. */
    static final long RESOLVE_CONFINED =
            RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;

    static final int STATX_BASIC_STATS = 0x7ff;
    static final int STATX_BTIME = 0x800;
    /** {@code stx_attributes} flags: {@code chattr +i}, no change to the file at all, not even by root... */
    static final long STATX_ATTR_IMMUTABLE = 0x10;
    /** ... and {@code chattr +a}, data may only be appended. */
    static final long STATX_ATTR_APPEND = 0x20;

    static final int S_IFMT = 0170000;
    static final int S_IFSOCK = 0140000;
    static final int S_IFLNK = 0120000;
    static final int S_IFREG = 0100000;
    static final int S_IFBLK = 0060000;
    static final int S_IFDIR = 0040000;
    static final int S_IFCHR = 0020000;
    static final int S_IFIFO = 0010000;

    static final byte DT_DIR = 4;

    static final long UTIME_NOW = (1L << 30) - 1;
    static final long UTIME_OMIT = (1L << 30) - 2;

    static final int SEEK_SET = 0;

    /** The {@code openat2} system call number: 437 on every architecture (the generic table). */
    private static final long SYS_OPENAT2 = 437;
    /**
     * The {@code faccessat2} system call number: 439 on every architecture. Called directly: glibc's
     * {@code faccessat} falls back to its own st_mode arithmetic where the kernel lacks it, which knows no ACLs.
     */
    private static final long SYS_FACCESSAT2 = 439;

    static final int R_OK = 4;
    static final int W_OK = 2;
    static final int X_OK = 1;
    static final int AT_EACCESS = 0x200;

    /** {@code FS_IOC_GETVERSION} ({@code _IOR('v', 1, long)}, linux/fs.h): the inode's generation. */
    static final long FS_IOC_GETVERSION = 0x80087601L;

    /** {@code struct statx} is 256 bytes; the offsets below are those of linux/stat.h. */
    static final int STATX_SIZE = 256;
    /** {@code struct statvfs} on LP64 Linux: eleven 8-byte fields and six spare ints. */
    static final int STATVFS_SIZE = 112;
    /** {@code struct iovec} on LP64: {@code iov_base} at 0, {@code iov_len} at 8. */
    static final int IOVEC_SIZE = 16;

    /** {@code pwritev2} flags (linux/fs.h): the write is synced as by O_DSYNC, or by O_SYNC, for its range only. */
    static final int RWF_DSYNC = 0x2;

    static final int RWF_SYNC = 0x4;

    private Posix() {}

    /** Paths are byte strings (one byte per char, see {@link ExportFs}): encoded as ISO-8859-1, NUL-terminated. */
    static MemorySegment path(Arena arena, String path) {
        return arena.allocateFrom(path, StandardCharsets.ISO_8859_1);
    }

    static int check(int result, MemorySegment state, String op, String what) throws PosixException {
        if (result < 0) {
            throw new PosixException(Libc.errno(state), op, what);
        }
        return result;
    }

    static long check(long result, MemorySegment state, String op, String what) throws PosixException {
        if (result < 0) {
            throw new PosixException(Libc.errno(state), op, what);
        }
        return result;
    }

    static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** {@return the process's effective user id} */
    static int geteuid() {
        try {
            return (int) Libc.GETEUID.invokeExact();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code openat2(2)}: opens {@code path} relative to {@code dirfd} with {@code flags} (close-on-exec added),
     * resolved as {@code resolve} says.
     */
    static int openat2(int dirfd, String path, int flags, int mode, long resolve) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment how = arena.allocate(24, 8);
            how.set(JAVA_LONG, 0, Integer.toUnsignedLong(flags | O_CLOEXEC));
            how.set(JAVA_LONG, 8, (flags & O_CREAT) != 0 ? mode : 0);
            how.set(JAVA_LONG, 16, resolve);
            long fd = (long) Libc.OPENAT2.invokeExact(state, SYS_OPENAT2, dirfd, path(arena, path), how, 24L);
            return (int) check(fd, state, "openat2", path);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code faccessat2(2)} of the file {@code fd} refers to, with {@code AT_EMPTY_PATH | AT_EACCESS}: whether the
     * calling thread's file-system ids, groups and capabilities allow {@code mode} ({@link #R_OK} | {@link #W_OK} |
     * {@link #X_OK}), decided by the kernel as for an open or exec: mode bits, POSIX ACLs, capabilities, a
     * read-only mount (Linux 5.8).
     *
     * @return 0 if allowed, else the errno (EACCES, EPERM, EROFS, ETXTBSY)
     */
    static int faccess(int fd, int mode) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            long r = (long) Libc.FACCESSAT2.invokeExact(
                    state, SYS_FACCESSAT2, fd, path(arena, ""), mode, AT_EMPTY_PATH | AT_EACCESS);
            if (r == 0) {
                return 0;
            }
            int errno = Libc.errno(state);
            return switch (errno) {
                case PosixException.EACCES, PosixException.EPERM, PosixException.EROFS, PosixException.ETXTBSY -> errno;
                default -> throw new PosixException(errno, "faccessat2", "fd " + fd);
            };
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code openat(2)} (close-on-exec added); used only to reopen {@code /proc/self/fd/N}. */
    static int openat(int dirfd, String path, int flags, int mode) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            int fd = (int) Libc.OPENAT.invokeExact(state, dirfd, path(arena, path), flags | O_CLOEXEC, mode);
            return check(fd, state, "openat", path);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code close(2)}; errors are ignored (the descriptor is gone either way on Linux). */
    static void close(int fd) {
        if (fd < 0) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            int ignored = (int) Libc.CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code statx(2)} into {@code into} (at least {@value #STATX_SIZE} bytes). */
    static Stat statx(int dirfd, String path, int flags) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment buf = arena.allocate(STATX_SIZE, 8);
            int r = (int) Libc.STATX.invokeExact(
                    state, dirfd, path(arena, path), flags, STATX_BASIC_STATS | STATX_BTIME, buf);
            check(r, state, "statx", path);
            return Stat.of(buf);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code statx} of the file {@code fd} refers to ({@code AT_EMPTY_PATH}; also for O_PATH descriptors). */
    static Stat fstat(int fd) throws PosixException {
        return statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
    }

    /** {@code pread(2)} into native memory; returns the bytes read (0 at the end of the file). */
    static long pread(int fd, MemorySegment into, long offset) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            while (true) {
                long n = (long) Libc.PREAD.invokeExact(state, fd, into, into.byteSize(), offset);
                if (n < 0 && Libc.errno(state) == PosixException.EINTR) {
                    continue;
                }
                return check(n, state, "pread", "fd " + fd);
            }
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code pwritev2(2)} of one buffer of native memory with {@code flags}; returns the bytes written. With
     * {@link #RWF_SYNC} or {@link #RWF_DSYNC} the kernel syncs what this call wrote (its range: data, and with
     * RWF_SYNC the metadata too) before it returns, as knfsd's {@code nfsd_vfs_write} does for a stable WRITE; an
     * error in that sync is this call's error.
     */
    static long pwritev2(int fd, MemorySegment from, long offset, int flags) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment iov = arena.allocate(IOVEC_SIZE, 8);
            iov.set(ValueLayout.ADDRESS, 0, from); // a heap segment is refused here, before any system call
            iov.set(JAVA_LONG, 8, from.byteSize());
            while (true) {
                long n = (long) Libc.PWRITEV2.invokeExact(state, fd, iov, 1, offset, flags);
                if (n < 0 && Libc.errno(state) == PosixException.EINTR) {
                    continue;
                }
                return check(n, state, "pwritev2", "fd " + fd);
            }
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void fsync(int fd) throws PosixException {
        simple(Libc.FSYNC, "fsync", fd);
    }

    /**
     * {@code ioctl(fd, FS_IOC_GETVERSION)}: the generation the file system gave the inode when it made it (ext2/3/4,
     * xfs, btrfs keep one; it tells apart the files that had the same inode number at different times).
     *
     * @throws PosixException ENOTTY where the file system has none
     */
    static int inodeVersion(int fd) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment out = arena.allocate(8, 8);
            check(
                    (int) Libc.IOCTL.invokeExact(state, fd, FS_IOC_GETVERSION, out),
                    state,
                    "ioctl(FS_IOC_GETVERSION)",
                    "fd " + fd);
            return out.get(JAVA_INT, 0); // the kernel writes an int (ext4_ioctl: put_user(i_generation, (int *)))
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code syncfs(2)}: the whole file system {@code fd} is on. */
    static void syncfs(int fd) throws PosixException {
        simple(Libc.SYNCFS, "syncfs", fd);
    }

    private static void simple(MethodHandle handle, String op, int fd) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            check((int) handle.invokeExact(state, fd), state, op, "fd " + fd);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void ftruncate(int fd, long length) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            check((int) Libc.FTRUNCATE.invokeExact(state, fd, length), state, "ftruncate", "fd " + fd);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static long lseek(int fd, long offset, int whence) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            return check((long) Libc.LSEEK.invokeExact(state, fd, offset, whence), state, "lseek", "fd " + fd);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code getdents64(2)}: fills {@code buf} with {@code struct linux_dirent64}s; returns the bytes, 0 at the end. */
    static long getdents64(int fd, MemorySegment buf) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            return check(
                    (long) Libc.GETDENTS64.invokeExact(state, fd, buf, buf.byteSize()),
                    state,
                    "getdents64",
                    "fd " + fd);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code fchownat(2)}; -1 leaves the id as it is. */
    static void fchownat(int dirfd, String name, int uid, int gid, int flags) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            check(
                    (int) Libc.FCHOWNAT.invokeExact(state, dirfd, path(arena, name), uid, gid, flags),
                    state,
                    "fchownat",
                    name);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void fchmodat(int dirfd, String name, int mode, int flags) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            check(
                    (int) Libc.FCHMODAT.invokeExact(state, dirfd, path(arena, name), mode, flags),
                    state,
                    "fchmodat",
                    name);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code utimensat(2)}: access and modification times, each as seconds and nanoseconds, or nanoseconds
     * {@link #UTIME_NOW} / {@link #UTIME_OMIT}.
     */
    static void utimensat(
            int dirfd, String name, long atimeSec, long atimeNsec, long mtimeSec, long mtimeNsec, int flags)
            throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment times = arena.allocate(32, 8);
            times.set(JAVA_LONG, 0, atimeSec);
            times.set(JAVA_LONG, 8, atimeNsec);
            times.set(JAVA_LONG, 16, mtimeSec);
            times.set(JAVA_LONG, 24, mtimeNsec);
            check(
                    (int) Libc.UTIMENSAT.invokeExact(state, dirfd, path(arena, name), times, flags),
                    state,
                    "utimensat",
                    name);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code /proc/self/fd/N}: the magic link that reopens exactly the file {@code fd} refers to. */
    static String procPath(int fd) {
        return "/proc/self/fd/" + fd;
    }
}
