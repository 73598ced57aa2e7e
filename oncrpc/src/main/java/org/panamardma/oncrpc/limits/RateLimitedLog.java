package org.panamardma.oncrpc.limits;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A WARN line at most once per interval for one kind of event, the others at DEBUG: what a server logs when clients
 * are refused or cut off, so that a client (or many) repeating the offence cannot flood the log. The line that goes
 * out after a quiet spell says how many were held back since the last one; the exact numbers are the server's
 * counters, which count every event. The kernel's {@code net_ratelimit()} plays this part for sunrpc's messages.
 * Thread-safe.
 */
public final class RateLimitedLog {
    private final Logger log;
    private final long intervalNanos;
    private final LongSupplier clock;
    private long nextWarnAt;
    private boolean warnedOnce;
    private long suppressed;

    /**
     * At most one WARN line per {@code interval} through the SLF4J logger of {@code owner}.
     *
     * @param owner the class whose logger writes the lines
     * @param interval the least time between two WARN lines, not negative
     * @throws IllegalArgumentException if {@code interval} is negative
     */
    public RateLimitedLog(Class<?> owner, Duration interval) {
        this(LoggerFactory.getLogger(owner), interval, System::nanoTime);
    }

    RateLimitedLog(Logger log, Duration interval, LongSupplier clock) {
        this.log = Objects.requireNonNull(log, "log");
        this.intervalNanos = Objects.requireNonNull(interval, "interval").toNanos();
        if (intervalNanos < 0) {
            throw new IllegalArgumentException("negative interval " + interval);
        }
        this.clock = clock;
    }

    /**
     * Logs {@code message} at WARN if the interval has passed since the last WARN line (with the count held back
     * meanwhile), else at DEBUG.
     *
     * @param message built only if the line is logged at a level that is enabled
     * @return whether it went out at WARN
     */
    public boolean warn(Supplier<String> message) {
        long held;
        synchronized (this) {
            long now = clock.getAsLong();
            if (warnedOnce && now - nextWarnAt < 0) {
                suppressed++;
                held = -1;
            } else {
                warnedOnce = true;
                nextWarnAt = now + intervalNanos;
                held = suppressed;
                suppressed = 0;
            }
        }
        if (held < 0) {
            log.atDebug().log(message);
            return false;
        }
        String line = message.get();
        log.warn(held == 0 ? line : line + " (" + held + " more like it since the last such line, at DEBUG)");
        return true;
    }

    /** {@return the events logged at DEBUG since the last WARN line} */
    public synchronized long suppressed() {
        return suppressed;
    }
}
