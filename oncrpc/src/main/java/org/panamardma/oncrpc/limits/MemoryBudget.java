package org.panamardma.oncrpc.limits;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A count of bytes that may be held at once: a server's budget, and its connections' budgets within it
 * ({@link #child}), so that what one connection holds is bounded by its own limit and what all hold together by the
 * server's.
 *
 * <p>What a client declares (a record length, chunk lengths, Reply chunk sizes) is never allocated on trust: a
 * transport takes memory from the budgets as a call really needs it and waits, up to a bound, when they are spent.
 * A wait that runs out is refused ({@link #acquire} returns false): the transport answers or drops that call and
 * holds nothing more for it.
 *
 * <p><b>Fair between connections.</b> Requests that must wait for the server's memory wait in one queue, and memory
 * given back goes first to the connection that holds the least now (equal holdings: the earlier request): a
 * connection that has taken much cannot take memory freed while others wait for some, however many requests it
 * queues (max-min fairness, as a fair queue shares a link). A request that does not fit the server's free memory
 * holds up the requests ranked behind it, so that a large call is not starved by a stream of small ones; a request
 * over its own connection's limit is passed over, as it waits for its own connection's memory, not the server's.
 * A new request takes free memory at once only when no request ranked before it waits.
 *
 * <p>Budgets nest one level: a root ({@link #of}) and its children. Thread-safe: a root and its children share one
 * lock.
 */
public final class MemoryBudget {
    private final String name;
    private final long limit;
    private final MemoryBudget parent;
    /** The root's lock and queue, shared by its children. */
    private final Queue queue;

    private long used;
    private long peak;
    private long refusals;

    /** Requests waiting on one root, with the lock that guards every count of the root and its children. */
    private static final class Queue {
        final ReentrantLock lock = new ReentrantLock();
        final List<Waiter> waiters = new ArrayList<>();
        long nextSeq;
    }

    /** One request waiting: granted by whoever frees memory for it (under the lock), then signalled. */
    private static final class Waiter {
        final MemoryBudget budget;
        final long bytes;
        final long seq;
        final Condition granted;
        boolean done;
        /** The budget that held the request back when it was last considered (to blame on a timeout). */
        MemoryBudget blockedBy;

        Waiter(MemoryBudget budget, long bytes, long seq, Condition granted) {
            this.budget = budget;
            this.bytes = bytes;
            this.seq = seq;
            this.granted = granted;
        }

        /** What the request's connection holds now: the fair queue serves the smallest first. */
        long holding() {
            return budget.parent == null ? 0 : budget.used;
        }
    }

    private static final Comparator<Waiter> RANK =
            Comparator.comparingLong(Waiter::holding).thenComparingLong(w -> w.seq);

    private MemoryBudget(String name, long limit, MemoryBudget parent) {
        if (limit < 0) {
            throw new IllegalArgumentException(name + ": a limit must not be negative: " + limit);
        }
        this.name = name;
        this.limit = limit;
        this.parent = parent;
        this.queue = parent == null ? new Queue() : parent.queue;
    }

    /**
     * A budget of its own (a server's).
     *
     * @param name names the budget in log lines and in the blame of {@link #acquireOrBlame}
     * @param limit the most bytes held at once, not negative
     * @return a budget with nothing held
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    public static MemoryBudget of(String name, long limit) {
        return new MemoryBudget(name, limit, null);
    }

    /**
     * A budget within this one (a connection's): every byte it holds is also held here, and its requests share this
     * budget's fair queue.
     *
     * @param childName names the child budget
     * @param childLimit the most bytes the child holds at once, not negative (a child limit above this budget's limit
     *        is allowed and is bounded by it)
     * @return a child budget with nothing held
     * @throws UnsupportedOperationException if this budget is itself a child: budgets nest one level
     */
    public MemoryBudget child(String childName, long childLimit) {
        if (parent != null) {
            throw new UnsupportedOperationException(name + " is a child budget: budgets nest one level");
        }
        return new MemoryBudget(childName, childLimit, this);
    }

    /**
     * Takes {@code bytes}, waiting up to {@code timeoutNanos} for them to be given back by others.
     *
     * @param bytes how many bytes, not negative; 0 returns true at once
     * @param timeoutNanos the most time to wait, in nanoseconds; 0 or less does not wait
     * @return false if they could not be had in that time (or ever: more than a limit); nothing is then held
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public boolean acquire(long bytes, long timeoutNanos) throws InterruptedException {
        return acquireOrBlame(bytes, timeoutNanos) == null;
    }

    /**
     * {@link #acquire}, telling which budget refused.
     *
     * @param bytes how many bytes, not negative; 0 returns null at once
     * @param timeoutNanos the most time to wait, in nanoseconds; 0 or less does not wait
     * @return null if the bytes were taken; else this budget or its parent, whichever limit held the request back
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public MemoryBudget acquireOrBlame(long bytes, long timeoutNanos) throws InterruptedException {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        if (bytes == 0) {
            return null;
        }
        long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        queue.lock.lock();
        try {
            if (bytes > limit) {
                refusals++;
                return this;
            }
            if (parent != null && bytes > parent.limit) {
                parent.refusals++;
                return parent;
            }
            Waiter w = new Waiter(this, bytes, queue.nextSeq++, queue.lock.newCondition());
            queue.waiters.add(w);
            grantWaiting();
            while (!w.done) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    queue.waiters.remove(w);
                    MemoryBudget blamed = w.blockedBy != null ? w.blockedBy : root();
                    blamed.refusals++;
                    grantWaiting(); // it may have held up requests ranked behind it
                    return blamed;
                }
                try {
                    w.granted.awaitNanos(left);
                } catch (InterruptedException e) {
                    if (w.done) {
                        take(-bytes);
                    } else {
                        queue.waiters.remove(w);
                    }
                    grantWaiting();
                    throw e;
                }
            }
            return null;
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * Gives back {@code bytes} taken by {@link #acquire}; they go to the requests waiting, fairest first.
     *
     * @param bytes how many bytes, not negative, at most what the caller holds
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public void release(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        if (bytes == 0) {
            return;
        }
        queue.lock.lock();
        try {
            if (bytes > used) {
                throw new IllegalStateException(name + ": releasing " + bytes + " bytes, " + used + " held");
            }
            take(-bytes);
            grantWaiting();
        } finally {
            queue.lock.unlock();
        }
    }

    private MemoryBudget root() {
        return parent == null ? this : parent;
    }

    /** Adds {@code bytes} (negative: gives back) to this budget and its parent. Under the lock. */
    private void take(long bytes) {
        used += bytes;
        peak = Math.max(peak, used);
        if (parent != null) {
            parent.used += bytes;
            parent.peak = Math.max(parent.peak, parent.used);
        }
    }

    /** Grants waiting requests in rank order while the first grantable one fits the server. Under the lock. */
    private void grantWaiting() {
        List<Waiter> waiters = queue.waiters;
        MemoryBudget root = root();
        boolean granted = true;
        while (granted && !waiters.isEmpty()) {
            granted = false;
            waiters.sort(RANK);
            for (Waiter w : waiters) {
                if (w.budget.parent != null && w.bytes > w.budget.limit - w.budget.used) {
                    w.blockedBy = w.budget; // waits for its own connection's memory: pass it over
                    continue;
                }
                if (w.bytes > root.limit - root.used) {
                    w.blockedBy = root; // the fairest request waits for the server: so do those behind it
                    break;
                }
                w.budget.take(w.bytes);
                w.done = true;
                waiters.remove(w);
                w.granted.signal();
                granted = true;
                break; // holdings changed: rank again
            }
        }
    }

    /** {@return the budget's name, for messages (e.g. "server heap", "10.77.0.1:40000 pinned")} */
    public String name() {
        return name;
    }

    /** {@return the most bytes that may be held at once} */
    public long limit() {
        return limit;
    }

    /** {@return the bytes held now} */
    public long used() {
        queue.lock.lock();
        try {
            return used;
        } finally {
            queue.lock.unlock();
        }
    }

    /** {@return the most bytes ever held at once} */
    public long peak() {
        queue.lock.lock();
        try {
            return peak;
        } finally {
            queue.lock.unlock();
        }
    }

    /** {@return how many requests were refused (their wait ran out, or they asked for more than the limit)} */
    public long refusals() {
        queue.lock.lock();
        try {
            return refusals;
        } finally {
            queue.lock.unlock();
        }
    }

    /** {@return how many requests of this budget (of the root and all its children, for a root) wait now} */
    public int waiting() {
        queue.lock.lock();
        try {
            if (parent == null) {
                return queue.waiters.size();
            }
            int n = 0;
            for (Waiter w : queue.waiters) {
                if (w.budget == this) {
                    n++;
                }
            }
            return n;
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return name + " " + used() + "/" + limit + " bytes (peak " + peak() + ")";
    }
}
