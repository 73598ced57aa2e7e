package org.panamardma.nfs.server;

import java.time.Duration;
import java.util.Objects;

/**
 * The valid ranges of {@link NfsServer.Builder}'s numbers and durations, checked when an option is set, so that a bad
 * value fails where it is given, naming the option and the value, and not later (at start, or at the first call that
 * waits) with a message about something else.
 */
final class OptionRanges {
    /** The most caller threads: knfsd's own most ({@code NFSD_MAXSERVS}, fs/nfsd/nfsd.h). */
    static final int MAX_THREADS = 8192;

    /**
     * The most RPC-over-RDMA credits per connection: svcrdma's largest {@code max_requests}
     * ({@code max_max_requests}, net/sunrpc/xprtrdma/svc_rdma.c). Each credit is a receive buffer posted and pinned
     * per connection, so this bounds what one connection holds.
     */
    static final int MAX_CREDITS = 16384;

    /** The longest wait a long counts in nanoseconds, as the server's waits do ({@link Duration#toNanos}). */
    private static final Duration LONGEST_WAIT = Duration.ofNanos(Long.MAX_VALUE);

    private OptionRanges() {}

    /**
     * {@return {@code value}, if it lies in [{@code min}, {@code max}]}
     *
     * @throws IllegalArgumentException naming {@code option} and {@code value} if it does not
     */
    static int inRange(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " " + value + ": must be " + min + " to " + max);
        }
        return value;
    }

    /**
     * {@return {@code value}, if it is a positive duration the server can count in nanoseconds (under 292 years), as
     * its waits do}
     *
     * @throws NullPointerException if {@code value} is null
     * @throws IllegalArgumentException naming {@code option} and {@code value} if it is zero, negative or longer
     */
    static Duration positive(String option, Duration value) {
        Objects.requireNonNull(value, option);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(option + " " + value + ": must be positive");
        }
        if (value.compareTo(LONGEST_WAIT) > 0) {
            throw new IllegalArgumentException(option + " " + value + ": must be under 292 years (waits count in ns)");
        }
        return value;
    }
}
