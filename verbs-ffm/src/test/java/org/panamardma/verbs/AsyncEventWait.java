package org.panamardma.verbs;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/** Waits for a device's asynchronous event of one type, for the async-event device tests of verbs and verbs.cm. */
public final class AsyncEventWait {
    private AsyncEventWait() {}

    /**
     * The next event of {@code type}, printing the others; fails after 30 s.
     *
     * @param events where the monitor puts the events
     * @param type the type waited for
     * @return the event
     * @throws InterruptedException when interrupted while waiting
     */
    public static AsyncEvent next(BlockingQueue<AsyncEvent> events, AsyncEventType type) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            AsyncEvent e = events.poll(200, TimeUnit.MILLISECONDS);
            if (e != null) {
                System.out.println("async event: " + e);
                if (e.type() == type) {
                    return e;
                }
            }
        }
        throw new AssertionError("no " + type + " within 30 s");
    }
}
