package org.panamardma.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.libc_h;

/**
 * A channel's file descriptor (completion channel, rdma_cm event channel) made non-blocking, and waited on with
 * poll(2) and a timeout: the channels never block inside libibverbs/librdmacm, so every wait can end, and a close
 * is never stuck behind a read. The native scratch comes from the owner's arena; not thread-safe (the owner's
 * monitor serialises it).
 *
 * <p>A failed call is reported as the owner's exception, made by the {@link Failure} it passes: this package sits
 * below {@code org.panamardma.verbs} and cannot name its {@code RdmaException} without a package cycle
 * (VerbsPackageCycleTest).
 *
 * @param <FAIL> the exception a failed fcntl(2) or poll(2) throws
 */
public final class ReadableFd<FAIL extends Exception> {
    /** {@code EINTR} ({@code <asm-generic/errno-base.h>}): poll(2) was interrupted by a signal. */
    private static final int EINTR = 4;

    /**
     * Makes the exception of a failed call.
     *
     * @param <FAIL> the exception
     */
    @FunctionalInterface
    public interface Failure<FAIL extends Exception> {
        /** The exception for {@code operation} failing with {@code errno}. */
        FAIL of(String operation, int errno);
    }

    private final int fd;
    private final String what;
    private final MemorySegment pollFd;
    private final MemorySegment callState;
    private final Failure<FAIL> failure;

    public ReadableFd(int fd, String what, Arena arena, Failure<FAIL> failure) throws FAIL {
        this.fd = fd;
        this.what = what;
        this.failure = failure;
        this.pollFd = arena.allocate(libc_h.POLLFD);
        this.callState = arena.allocate(Native.CALL_STATE);
        int flags = libc_h.fcntl(callState, fd, libc_h.F_GETFL, 0);
        if (flags < 0 || libc_h.fcntl(callState, fd, libc_h.F_SETFL, flags | libc_h.O_NONBLOCK) < 0) {
            throw failure.of("fcntl(O_NONBLOCK) on the " + what, Native.errno(callState));
        }
    }

    public int fd() {
        return fd;
    }

    /** Waits up to {@code timeoutMillis} for the fd to become readable; returns whether it is (false: timeout). */
    public boolean await(int timeoutMillis) throws FAIL {
        pollFd.set(JAVA_INT, 0, fd);
        pollFd.set(JAVA_SHORT, 4, libc_h.POLLIN);
        pollFd.set(JAVA_SHORT, 6, (short) 0);
        int rc = libc_h.poll(callState, pollFd, 1, timeoutMillis);
        if (rc < 0) {
            int errno = Native.errno(callState);
            if (errno == EINTR) {
                return false;
            }
            throw failure.of("poll on the " + what, errno);
        }
        return rc > 0;
    }
}
