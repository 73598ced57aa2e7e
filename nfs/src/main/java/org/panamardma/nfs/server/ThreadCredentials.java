package org.panamardma.nfs.server;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Linux credentials of the calling OS thread: file-system ids, supplementary groups, capabilities, and the
 * thread's own umask. On Linux every one of these belongs to a thread (a task), not to the process; the C library
 * makes {@code setuid}, {@code setgid} and {@code setgroups} process-wide by signalling every thread to repeat the
 * call (glibc's {@code setxid} broadcast), which is exactly what a server acting for several callers at once must
 * not do. So:
 * <ul>
 *   <li>{@code setgroups} is the raw system call ({@code syscall(SYS_setgroups)}): this thread only;
 *   <li>{@code setfsuid}, {@code setfsgid}, {@code capget}, {@code capset} are glibc's wrappers, which are plain
 *       system calls (no broadcast), and per thread in the kernel;
 *   <li>{@code unshare(CLONE_FS)} gives the thread a file-system context of its own, so that {@code umask(0)} then
 *       applies to it alone (knfsd's threads do the same: {@code unshare_fs_struct} in {@code nfsd()}).
 * </ul>
 * Only a platform thread may use this: a virtual thread moves between carrier (OS) threads whenever it blocks, so
 * the credentials set by one system call could belong to another virtual thread by the next one.
 *
 * <p>Linux x86_64 and aarch64 (the system call numbers of those two are below).
 */
final class ThreadCredentials {
    static final int CAP_CHOWN = 0;
    static final int CAP_DAC_OVERRIDE = 1;
    static final int CAP_DAC_READ_SEARCH = 2;
    static final int CAP_FOWNER = 3;
    static final int CAP_FSETID = 4;
    static final int CAP_SETGID = 6;
    static final int CAP_SETUID = 7;
    static final int CAP_LINUX_IMMUTABLE = 9;
    static final int CAP_SYS_RESOURCE = 24;
    static final int CAP_MKNOD = 27;
    static final int CAP_MAC_OVERRIDE = 32;

    /**
     * The capabilities knfsd takes from a caller that is not root and gives back to root ({@code CAP_NFSD_SET} of
     * include/linux/capability.h: the file-system set {@code CAP_FS_MASK} and CAP_SYS_RESOURCE): without them the
     * kernel checks permissions for the caller and clears set-id bits on its writes.
     */
    static final long NFSD_SET = bit(CAP_CHOWN)
            | bit(CAP_DAC_OVERRIDE)
            | bit(CAP_DAC_READ_SEARCH)
            | bit(CAP_FOWNER)
            | bit(CAP_FSETID)
            | bit(CAP_LINUX_IMMUTABLE)
            | bit(CAP_MKNOD)
            | bit(CAP_MAC_OVERRIDE)
            | bit(CAP_SYS_RESOURCE);

    private static final int CLONE_FS = 0x200;
    /** {@code _LINUX_CAPABILITY_VERSION_3}: two 32-bit words per set. */
    private static final int CAPABILITY_VERSION_3 = 0x20080522;
    /** NGROUPS_MAX of Linux. */
    static final int MAX_GROUPS = 65536;

    private static final long SYS_SETGROUPS = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> 116;
        case "aarch64" -> 159;
        default -> -1;
    };

    /**
     * The identity system calls made so far ({@code setfsuid}, {@code setfsgid}, {@code setgroups}, {@code capset},
     * by all threads), each counted as it is made: what tests count a call's switches by.
     */
    private static final LongAdder SYSTEM_CALLS = new LongAdder();

    private ThreadCredentials() {}

    /** {@return the identity system calls made so far, by all threads} */
    static long systemCalls() {
        return SYSTEM_CALLS.sum();
    }

    static long bit(int capability) {
        return 1L << capability;
    }

    private static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    private static void requirePlatformThread() {
        if (Thread.currentThread().isVirtual()) {
            throw new IllegalStateException(
                    "credentials belong to an OS thread; a virtual thread changes OS thread" + " whenever it blocks");
        }
    }

    /**
     * {@code setfsuid(2)}: the user the kernel checks file access against, for this thread. It reports no error;
     * the result is checked by asking again ({@link #fsuid()}).
     *
     * @return the previous file-system user id
     */
    static int setfsuid(int uid) {
        requirePlatformThread();
        try {
            SYSTEM_CALLS.increment();
            return (int) Libc.SETFSUID.invokeExact(uid);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code setfsgid(2)}, likewise. */
    static int setfsgid(int gid) {
        requirePlatformThread();
        try {
            SYSTEM_CALLS.increment();
            return (int) Libc.SETFSGID.invokeExact(gid);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** The thread's file-system user id ({@code setfsuid(-1)}: an invalid id changes nothing and reports it). */
    static int fsuid() {
        return setfsuid(-1);
    }

    /** The thread's file-system group id. */
    static int fsgid() {
        return setfsgid(-1);
    }

    static int getegid() {
        try {
            return (int) Libc.GETEGID.invokeExact();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** The raw {@code setgroups} system call: this thread's supplementary groups, no other thread's. */
    static void setgroups(int[] groups) throws PosixException {
        requirePlatformThread();
        if (SYS_SETGROUPS < 0) {
            throw new UnsupportedOperationException(
                    "setgroups: unknown system call number on " + System.getProperty("os.arch"));
        }
        if (groups.length > MAX_GROUPS) {
            throw new IllegalArgumentException(groups.length + " groups");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment list = groups.length == 0 ? MemorySegment.NULL : arena.allocateFrom(JAVA_INT, groups);
            SYSTEM_CALLS.increment();
            long r = (long) Libc.SYSCALL_SETGROUPS.invokeExact(state, SYS_SETGROUPS, (long) groups.length, list);
            if (r < 0) {
                throw new PosixException(Libc.errno(state), "setgroups", groups.length + " groups");
            }
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code getgroups(2)}: this thread's supplementary groups. */
    static int[] getgroups() throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            int n = (int) Libc.GETGROUPS.invokeExact(state, 0, MemorySegment.NULL);
            if (n < 0) {
                throw new PosixException(Libc.errno(state), "getgroups", "count");
            }
            MemorySegment list = arena.allocate(JAVA_INT, Math.max(1, n));
            int m = (int) Libc.GETGROUPS.invokeExact(state, n, list);
            if (m < 0) {
                throw new PosixException(Libc.errno(state), "getgroups", n + " groups");
            }
            return list.asSlice(0, (long) m * Integer.BYTES).toArray(JAVA_INT);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * A thread's capability sets, 64 bits each (bit n is capability n).
     *
     * @param effective what the kernel checks
     * @param permitted what the thread may raise into effective
     * @param inheritable what survives an execve
     */
    record Capabilities(long effective, long permitted, long inheritable) {
        boolean has(int capability) {
            return (effective & bit(capability)) != 0;
        }

        boolean mayRaise(int capability) {
            return (permitted & bit(capability)) != 0;
        }

        Capabilities withEffective(long effective) {
            return new Capabilities(effective, permitted, inheritable);
        }
    }

    /** {@code capget(2)} of this thread. */
    static Capabilities capget() throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment header = arena.allocate(8, 4);
            header.set(JAVA_INT, 0, CAPABILITY_VERSION_3);
            header.set(JAVA_INT, 4, 0);
            MemorySegment data = arena.allocate(24, 4);
            if ((int) Libc.CAPGET.invokeExact(state, header, data) < 0) {
                throw new PosixException(Libc.errno(state), "capget", "this thread");
            }
            return new Capabilities(join(data, 0), join(data, 4), join(data, 8));
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code capset(2)} of this thread: its sets become {@code c} (raising needs them in the permitted set). */
    static void capset(Capabilities c) throws PosixException {
        requirePlatformThread();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment header = arena.allocate(8, 4);
            header.set(JAVA_INT, 0, CAPABILITY_VERSION_3);
            header.set(JAVA_INT, 4, 0);
            MemorySegment data = arena.allocate(24, 4);
            split(data, 0, c.effective());
            split(data, 4, c.permitted());
            split(data, 8, c.inheritable());
            SYSTEM_CALLS.increment();
            if ((int) Libc.CAPSET.invokeExact(state, header, data) < 0) {
                throw new PosixException(Libc.errno(state), "capset", "this thread");
            }
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** Version 3 data: two structs of (effective, permitted, inheritable), low 32 bits first. */
    private static long join(MemorySegment data, long field) {
        return Integer.toUnsignedLong(data.get(JAVA_INT, field))
                | Integer.toUnsignedLong(data.get(JAVA_INT, 12 + field)) << 32;
    }

    private static void split(MemorySegment data, long field, long value) {
        data.set(JAVA_INT, field, (int) value);
        data.set(JAVA_INT, 12 + field, (int) (value >>> 32));
    }

    /**
     * Gives this thread a file-system context (cwd, root, umask) of its own, then sets its umask to 0: the modes
     * clients ask for are applied as given (the client applied its own umask; knfsd runs with umask 0 likewise).
     */
    static void privateUmaskZero() throws PosixException {
        requirePlatformThread();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            if ((int) Libc.UNSHARE.invokeExact(state, CLONE_FS) < 0) {
                throw new PosixException(Libc.errno(state), "unshare", "CLONE_FS");
            }
            int ignored = (int) Libc.UMASK.invokeExact(0);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }
}
