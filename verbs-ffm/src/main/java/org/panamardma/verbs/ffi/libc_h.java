package org.panamardma.verbs.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * The few libc functions the verbs layer needs: waiting on a completion channel's fd, mapping persistent memory, and
 * the eventfd an event loop is woken through ({@link org.panamardma.verbs.connection.FdWaiter}).
 */
public final class libc_h {
    private libc_h() {}

    public static final int O_RDWR = 2;
    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_NONBLOCK = 04000;
    public static final short POLLIN = 1;
    /** {@code <sys/eventfd.h>}: EFD_NONBLOCK and EFD_CLOEXEC (the values of O_NONBLOCK and O_CLOEXEC on Linux). */
    public static final int EFD_NONBLOCK = 04000;

    public static final int EFD_CLOEXEC = 02000000;
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 1;
    public static final long MAP_FAILED = -1L;
    /** Address families of {@code <sys/socket.h>}: the {@code sa_family} of sockaddr_in / sockaddr_in6. */
    public static final int AF_INET = 2;

    public static final int AF_INET6 = 10;

    /** {@code struct pollfd { int fd; short events; short revents; }} */
    public static final StructLayout POLLFD = MemoryLayout.structLayout(
            JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents"));

    private static final Linker L = Native.LINKER;

    private static MethodHandle handle(String name, FunctionDescriptor fd, Linker.Option... options) {
        return L.defaultLookup()
                .find(name)
                .map(a -> L.downcallHandle(a, fd, options))
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
    }

    private static final MethodHandle POLL =
            handle("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Native.CAPTURE_ERRNO);
    private static final MethodHandle FCNTL = handle(
            "fcntl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
            Native.CAPTURE_ERRNO,
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle OPEN =
            handle("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Native.CAPTURE_ERRNO);
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle MMAP = handle(
            "mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG),
            Native.CAPTURE_ERRNO);
    private static final MethodHandle MUNMAP = handle("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));

    public static int poll(MemorySegment callState, MemorySegment fds, long nfds, int timeoutMillis) {
        try {
            return (int) POLL.invokeExact(callState, fds, nfds, timeoutMillis);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle EVENTFD =
            handle("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), Native.CAPTURE_ERRNO);
    private static final MethodHandle READ =
            handle("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), Native.CAPTURE_ERRNO);
    private static final MethodHandle WRITE =
            handle("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), Native.CAPTURE_ERRNO);

    public static int eventfd(MemorySegment callState, int initval, int flags) {
        try {
            return (int) EVENTFD.invokeExact(callState, initval, flags);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    public static long read(MemorySegment callState, int fd, MemorySegment buf, long count) {
        try {
            return (long) READ.invokeExact(callState, fd, buf, count);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    public static long write(MemorySegment callState, int fd, MemorySegment buf, long count) {
        try {
            return (long) WRITE.invokeExact(callState, fd, buf, count);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    public static int fcntl(MemorySegment callState, int fd, int cmd, int arg) {
        try {
            return (int) FCNTL.invokeExact(callState, fd, cmd, arg);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    public static int open(MemorySegment callState, MemorySegment path, int flags) {
        try {
            return (int) OPEN.invokeExact(callState, path, flags);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    public static int close(int fd) {
        try {
            return (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    public static MemorySegment mmap(
            MemorySegment callState, MemorySegment addr, long length, int prot, int flags, int fd, long offset) {
        try {
            return (MemorySegment) MMAP.invokeExact(callState, addr, length, prot, flags, fd, offset);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    public static int munmap(MemorySegment addr, long length) {
        try {
            return (int) MUNMAP.invokeExact(addr, length);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }
}
