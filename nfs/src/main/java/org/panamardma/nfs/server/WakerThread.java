package org.panamardma.nfs.server;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread of a {@link CallerThreads} that does, for its caller threads, whatever would wake a virtual thread
 * or start a thread: ending a call (its waiter, the transport's virtual thread, is unparked), running what an
 * abandoned call releases, starting a replacement thread. A thread inherits the very credentials of the thread that
 * starts it (the kernel's {@code copy_creds} shares them within a process), and a virtual thread's carrier is started
 * by whichever thread hands the scheduler work while no carrier is idle, a thread that unparked a virtual thread
 * included. A caller thread's credentials are never again the ones the RDMA device was opened with, even after it
 * switched back to the server's, so a carrier it started could never post (include/rdma/ib.h,
 * {@code ib_safe_file_access}: BadInputDeviceTest); and one started while it acted as a caller would run every
 * virtual thread after it as that caller. This thread never changes its credentials; it is started by the thread that
 * makes the server, which must not have changed them either.
 *
 * <p>A caller thread hands it work with a queue whose signal unparks this platform thread (a futex wake, no thread
 * started). What it runs is short (a signal, a release); a replacement thread's start waits for the new thread to be
 * set up, a rare case. It ends once {@code done} holds and nothing is queued.
 *
 * <p>It also keeps the calls' deadlines: every period it runs {@code sweep}, which wakes the waiters of calls past
 * theirs (they wait untimed, {@link CallerTask}).
 */
final class WakerThread {
    private static final Logger LOG = LoggerFactory.getLogger(WakerThread.class);

    private final LinkedBlockingQueue<Runnable> work = new LinkedBlockingQueue<>();
    private final Thread thread;

    private final Runnable sweep;
    private final LongSupplier periodNanos;

    /**
     * Starts the thread.
     *
     * @param done whether no caller thread can hand it anything more (checked when it finds nothing queued)
     * @param sweep run every {@code periodNanos} (read again after each), between the work handed to it
     */
    WakerThread(String name, BooleanSupplier done, Runnable sweep, LongSupplier periodNanos) {
        this.sweep = sweep;
        this.periodNanos = periodNanos;
        this.thread = Thread.ofPlatform().daemon().name(name).start(() -> loop(done));
    }

    /** Runs {@code r} on this thread, after what was handed before it. */
    void execute(Runnable r) {
        work.add(r);
    }

    /** Whether the calling thread is this one. */
    boolean isCurrent() {
        return Thread.currentThread() == thread;
    }

    private void loop(BooleanSupplier done) {
        long lastSweep = System.nanoTime();
        while (true) {
            Runnable r;
            try {
                // the period is read at each turn: a shorter one takes effect at the next work handed over
                long left = lastSweep + periodNanos.getAsLong() - System.nanoTime();
                r = work.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                LOG.warn("{} interrupted with {} tasks left; running them", thread.getName(), work.size());
                drain();
                return;
            }
            if (r != null) {
                run(r);
            } else if (done.getAsBoolean() && work.isEmpty()) {
                return;
            }
            long now = System.nanoTime();
            if (now - lastSweep - periodNanos.getAsLong() >= 0) {
                run(sweep);
                lastSweep = now;
            }
        }
    }

    private void drain() {
        Runnable r;
        while ((r = work.poll()) != null) {
            run(r);
        }
    }

    private void run(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException | Error e) {
            LOG.error(thread.getName() + ": a call's end failed", e);
        }
    }
}
