package org.panamardma.verbs.connection;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.libc_h;

/**
 * What an event loop sleeps on: the file descriptors of several channels (completion channels, rdma_cm event
 * channels: their {@code fd()}), waited on together with one {@code poll(2)}, and an eventfd through which any thread
 * wakes the waiter ({@link #wakeup()}). A Netty {@code IoHandler} over RDMA is the user: it sleeps here until a
 * completion, a connection-manager event, a task or its next timer.
 *
 * <p>One thread owns the waiter: it adds and removes descriptors, waits, and reads what is ready; only
 * {@link #wakeup()} may be called from any thread. Nothing is allocated by {@link #await} or {@link #wakeup}: the
 * {@code pollfd} array, the eventfd's counter and the call state are native memory made once. The descriptors stay
 * their owners' (the waiter never reads or closes them); the eventfd is the waiter's own.
 *
 * <p>{@code poll(2)} and not {@code epoll}: an event loop watches a handful of descriptors (one completion channel
 * per device, one rdma_cm event channel, the eventfd), where {@code poll} costs the same and needs no kernel object
 * to keep in step.
 */
public final class FdWaiter implements AutoCloseable {
    /** The most descriptors one waiter watches (besides its eventfd). */
    public static final int MAX_FDS = 64;

    private static final long POLLFD_SIZE = libc_h.POLLFD.byteSize();

    private final Arena arena = Arena.ofShared();
    /** pollfd[0] is the eventfd; pollfd[1..count] the watched descriptors in {@link #fds} order. */
    private final MemorySegment pollFds;

    private final MemorySegment callState;
    private final MemorySegment counter;
    private final MemorySegment wakeCallState;
    private final MemorySegment one;
    private final int eventFd;
    private final int[] fds = new int[MAX_FDS];
    private int count;
    /** Guards the eventfd against a close while another thread writes to it (a reused fd number). */
    private final Object wakeLock = new Object();

    private boolean closed;

    private FdWaiter(int eventFd) {
        this.eventFd = eventFd;
        this.pollFds = arena.allocate(POLLFD_SIZE * (MAX_FDS + 1), 8);
        this.callState = arena.allocate(Native.CALL_STATE);
        this.counter = arena.allocate(JAVA_LONG);
        this.wakeCallState = arena.allocate(Native.CALL_STATE);
        this.one = arena.allocate(JAVA_LONG);
        one.set(JAVA_LONG, 0, 1L);
        setPollFd(0, eventFd);
    }

    /**
     * A waiter with its own non-blocking eventfd ({@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}).
     *
     * @return the waiter; close it to close the eventfd and free its native memory
     * @throws RdmaException with {@code eventfd}'s errno (EMFILE, ENFILE: out of descriptors)
     */
    public static FdWaiter create() throws RdmaException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = a.allocate(Native.CALL_STATE);
            int fd = libc_h.eventfd(cs, 0, libc_h.EFD_NONBLOCK | libc_h.EFD_CLOEXEC);
            if (fd < 0) {
                throw new RdmaException("eventfd", Native.errno(cs));
            }
            return new FdWaiter(fd);
        }
    }

    private void setPollFd(int index, int fd) {
        long base = index * POLLFD_SIZE;
        pollFds.set(JAVA_INT, base, fd);
        pollFds.set(JAVA_SHORT, base + 4, libc_h.POLLIN);
        pollFds.set(JAVA_SHORT, base + 6, (short) 0);
    }

    /**
     * Watches {@code fd} for readability (owner thread).
     *
     * @param fd an open descriptor, not watched yet; the caller keeps owning it
     * @throws IllegalArgumentException if {@code fd} is negative or watched already
     * @throws IllegalStateException if {@value #MAX_FDS} descriptors are watched already
     */
    public void add(int fd) {
        checkOpen();
        if (fd < 0) {
            throw new IllegalArgumentException("negative fd " + fd);
        }
        for (int i = 0; i < count; i++) {
            if (fds[i] == fd) {
                throw new IllegalArgumentException("fd " + fd + " is watched already");
            }
        }
        if (count == MAX_FDS) {
            throw new IllegalStateException("a waiter watches at most " + MAX_FDS + " descriptors");
        }
        fds[count] = fd;
        setPollFd(count + 1, fd);
        count++;
    }

    /**
     * Stops watching {@code fd}; returns whether it was watched (owner thread).
     *
     * @param fd the descriptor
     * @return whether it was watched
     */
    public boolean remove(int fd) {
        for (int i = 0; i < count; i++) {
            if (fds[i] == fd) {
                count--;
                fds[i] = fds[count];
                setPollFd(i + 1, fds[i]);
                return true;
            }
        }
        return false;
    }

    /** {@return how many descriptors are watched (the eventfd not counted), at most {@value #MAX_FDS}} */
    public int size() {
        return count;
    }

    /**
     * Waits up to {@code timeoutMillis} (0: just look; never negative: every wait ends) until a watched descriptor is
     * readable or {@link #wakeup()} was called, and returns how many watched descriptors are readable: read them with
     * {@link #readyFd(int)}. A wake-up is consumed here (the eventfd is read back to zero). EINTR counts as a wake-up.
     *
     * @param timeoutMillis the longest wait in milliseconds; 0 does not block
     * @return how many watched descriptors are readable; 0 after a timeout, a wake-up or EINTR
     * @throws RdmaException with {@code poll}'s errno other than EINTR (ENOMEM)
     * @throws IllegalArgumentException if {@code timeoutMillis} is negative
     */
    public int await(int timeoutMillis) throws RdmaException {
        checkOpen();
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("negative timeout " + timeoutMillis + " ms: every wait has an end");
        }
        int rc = libc_h.poll(callState, pollFds, count + 1, timeoutMillis);
        if (rc < 0) {
            int errno = Native.errno(callState);
            if (errno == Errno.EINTR) {
                return 0;
            }
            throw new RdmaException("poll on " + (count + 1) + " descriptors", errno);
        }
        if (rc == 0) {
            return 0;
        }
        int ready = 0;
        if ((pollFds.get(JAVA_SHORT, 6) & libc_h.POLLIN) != 0) {
            libc_h.read(callState, eventFd, counter, 8); // EAGAIN if another wait consumed it: harmless
        }
        for (int i = 0; i < count; i++) {
            short revents = pollFds.get(JAVA_SHORT, (i + 1) * POLLFD_SIZE + 6);
            if (revents != 0) {
                // readable, or POLLERR/POLLHUP: the owner reads the channel and learns why
                int fd = fds[i];
                fds[i] = fds[ready];
                fds[ready] = fd;
                ready++;
            }
        }
        // keep pollfd[] in the order of fds[] (the ready ones were moved to the front)
        for (int i = 0; i < count; i++) {
            setPollFd(i + 1, fds[i]);
        }
        return ready;
    }

    /**
     * The {@code i}-th readable descriptor of the last {@link #await} ({@code i} below what it returned).
     *
     * @param i 0 to the last {@link #await}'s result - 1
     * @return the descriptor
     * @throws IndexOutOfBoundsException if {@code i} is out of that range
     */
    public int readyFd(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException(i);
        }
        return fds[i];
    }

    /** Wakes the thread in {@link #await} (or its next call): any thread, any time; after close, nothing. */
    public void wakeup() {
        synchronized (wakeLock) {
            if (closed) {
                return;
            }
            // a full counter (EAGAIN) means a wake-up is pending anyway
            libc_h.write(wakeCallState, eventFd, one, 8);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("fd waiter is closed");
        }
    }

    /** Closes the eventfd; the watched descriptors are their owners' to close. Owner thread; idempotent. */
    @Override
    public void close() {
        synchronized (wakeLock) {
            if (closed) {
                return;
            }
            closed = true;
            libc_h.close(eventFd);
        }
        arena.close();
    }
}
