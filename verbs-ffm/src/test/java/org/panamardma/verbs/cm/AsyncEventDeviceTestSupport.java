package org.panamardma.verbs.cm;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.panamardma.verbs.AsyncEvent;
import org.panamardma.verbs.AsyncEventType;

final class AsyncEventDeviceTestSupport {
    private AsyncEventDeviceTestSupport() {}

    /** The next event of {@code type}, printing the others; fails after 30 s. */
    static AsyncEvent next(BlockingQueue<AsyncEvent> events, AsyncEventType type) throws InterruptedException {
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
