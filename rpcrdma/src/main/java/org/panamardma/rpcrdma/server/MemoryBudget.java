package org.panamardma.rpcrdma.server;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A count of bytes that may be held at once, with an optional parent: a connection's budget draws on the server's,
 * so that what one connection holds is bounded by its own limit and what all hold together by the server's.
 *
 * <p>What a client declares (chunk lengths, Reply chunk sizes) is never allocated on trust: the server takes
 * memory for a call from its budgets as the call really needs it, and waits (up to a bound) when they are spent,
 * so a connection's calls queue behind its own memory and a busy server's calls behind the server's. A wait that
 * runs out is refused ({@link #acquire} returns false): the caller answers that call with an error and holds
 * nothing more.
 *
 * <p>Thread-safe. Acquisitions from a child lock the child, then the parent, never the reverse.
 */
public final class MemoryBudget {
    private final String name;
    private final long limit;
    private final MemoryBudget parent;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private long used;
    private long peak;
    private long refusals;

    private MemoryBudget(String name, long limit, MemoryBudget parent) {
        if (limit < 0) {
            throw new IllegalArgumentException(name + ": a limit must not be negative: " + limit);
        }
        this.name = name;
        this.limit = limit;
        this.parent = parent;
    }

    /** A budget of its own. */
    public static MemoryBudget of(String name, long limit) {
        return new MemoryBudget(name, limit, null);
    }

    /** A budget within this one: every byte it holds is also held here. */
    public MemoryBudget child(String childName, long childLimit) {
        return new MemoryBudget(childName, childLimit, this);
    }

    /**
     * Takes {@code bytes}, waiting up to {@code timeoutNanos} for them to be released by others.
     *
     * @return false if they could not be had in that time (or ever: more than the limit); nothing is then held
     */
    public boolean acquire(long bytes, long timeoutNanos) throws InterruptedException {
        return acquireOrBlame(bytes, timeoutNanos) == null;
    }

    /**
     * {@link #acquire}, telling which budget refused.
     *
     * @return null if the bytes were taken; else this budget or the parent whose limit stood in the way
     */
    MemoryBudget acquireOrBlame(long bytes, long timeoutNanos) throws InterruptedException {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        if (bytes == 0) {
            return null;
        }
        return acquireUntil(bytes, System.nanoTime() + timeoutNanos);
    }

    /** Takes from this budget, then its parents; on a refusal holds nothing and names who refused. */
    private MemoryBudget acquireUntil(long bytes, long deadline) throws InterruptedException {
        if (!take(bytes, deadline)) {
            return this;
        }
        if (parent != null) {
            MemoryBudget blamed;
            try {
                blamed = parent.acquireUntil(bytes, deadline);
            } catch (InterruptedException | RuntimeException e) {
                release(bytes, false);
                throw e;
            }
            if (blamed != null) {
                release(bytes, false);
                return blamed;
            }
        }
        return null;
    }

    /** Gives back {@code bytes} taken by {@link #acquire}. */
    public void release(long bytes) {
        release(bytes, true);
    }

    private void release(long bytes, boolean withParent) {
        if (bytes == 0) {
            return;
        }
        lock.lock();
        try {
            if (bytes > used) {
                throw new IllegalStateException(name + ": releasing " + bytes + " bytes, " + used + " held");
            }
            used -= bytes;
            released.signalAll();
        } finally {
            lock.unlock();
        }
        if (withParent && parent != null) {
            parent.release(bytes, true);
        }
    }

    private boolean take(long bytes, long deadline) throws InterruptedException {
        lock.lock();
        try {
            if (bytes > limit) {
                refusals++;
                return false;
            }
            while (bytes > limit - used) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    refusals++;
                    return false;
                }
                released.await(left, TimeUnit.NANOSECONDS);
            }
            used += bytes;
            peak = Math.max(peak, used);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** @return the budget's name, for messages (e.g. "server heap", "connection 10.77.0.1:40000 pinned") */
    public String name() {
        return name;
    }

    /** @return the most bytes that may be held at once */
    public long limit() {
        return limit;
    }

    /** @return the bytes held now */
    public long used() {
        lock.lock();
        try {
            return used;
        } finally {
            lock.unlock();
        }
    }

    /** @return the most bytes ever held at once */
    public long peak() {
        lock.lock();
        try {
            return peak;
        } finally {
            lock.unlock();
        }
    }

    /** @return how many acquisitions were refused (their wait ran out, or they asked for more than the limit) */
    public long refusals() {
        lock.lock();
        try {
            return refusals;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return name + " " + used() + "/" + limit + " bytes (peak " + peak() + ")";
    }
}
