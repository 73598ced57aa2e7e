package org.panamardma.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.libc_h;

/**
 * A channel's file descriptor (completion channel, rdma_cm event channel) made non-blocking, and waited on with
 * poll(2) and a timeout: the channels never block inside libibverbs/librdmacm, so every wait can end, and a close
 * is never stuck behind a read. The native scratch comes from the owner's arena; not thread-safe (the owner's
 * monitor serialises it).
 */
public final class ReadableFd {
    private final int fd;
    private final String what;
    private final MemorySegment pollFd;
    private final MemorySegment callState;

    public ReadableFd(int fd, String what, Arena arena) throws RdmaException {
        this.fd = fd;
        this.what = what;
        this.pollFd = arena.allocate(libc_h.POLLFD);
        this.callState = arena.allocate(Native.CALL_STATE);
        int flags = libc_h.fcntl(callState, fd, libc_h.F_GETFL, 0);
        if (flags < 0 || libc_h.fcntl(callState, fd, libc_h.F_SETFL, flags | libc_h.O_NONBLOCK) < 0) {
            throw new RdmaException("fcntl(O_NONBLOCK) on the " + what, Native.errno(callState));
        }
    }

    public int fd() {
        return fd;
    }

    /** Waits up to {@code timeoutMillis} for the fd to become readable; returns whether it is (false: timeout). */
    public boolean await(int timeoutMillis) throws RdmaException {
        pollFd.set(JAVA_INT, 0, fd);
        pollFd.set(JAVA_SHORT, 4, libc_h.POLLIN);
        pollFd.set(JAVA_SHORT, 6, (short) 0);
        int rc = libc_h.poll(callState, pollFd, 1, timeoutMillis);
        if (rc < 0) {
            int errno = Native.errno(callState);
            if (errno == Errno.EINTR) {
                return false;
            }
            throw new RdmaException("poll on the " + what, errno);
        }
        return rc > 0;
    }
}
