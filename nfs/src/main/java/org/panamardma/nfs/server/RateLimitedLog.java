package org.panamardma.nfs.server;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * A WARN line per event, at most {@code perMinute} a minute: what a peer can make the server log is bounded (a
 * refused client retrying in a loop must not fill the disk). The first line of the next minute says how many were
 * left out.
 */
final class RateLimitedLog {
    private static final long MINUTE = 60_000_000_000L;

    private final Logger log;
    private final int perMinute;
    private final Object lock = new Object();
    private long windowStart = System.nanoTime();
    private int inWindow;
    private final AtomicLong suppressed = new AtomicLong();

    RateLimitedLog(Logger log, int perMinute) {
        this.log = log;
        this.perMinute = perMinute;
    }

    void warn(java.util.function.Supplier<String> message) {
        long left;
        synchronized (lock) {
            long now = System.nanoTime();
            if (now - windowStart >= MINUTE) {
                windowStart = now;
                inWindow = 0;
            }
            if (inWindow >= perMinute) {
                suppressed.incrementAndGet();
                return;
            }
            inWindow++;
            left = suppressed.getAndSet(0);
        }
        log.warn(message.get() + (left > 0 ? " (" + left + " more such lines left out)" : ""));
    }

    /** {@return the lines left out and not yet reported} */
    long suppressed() {
        return suppressed.get();
    }
}
