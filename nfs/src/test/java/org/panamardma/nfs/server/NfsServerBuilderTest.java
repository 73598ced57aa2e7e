package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The builder's numbers and durations are refused when set, outside their range, with an
 * {@link IllegalArgumentException} naming the option and the value: before, credits, rdmaTimeout and the waits took
 * zero and negative values, which failed later (credits at start, and only with an RDMA listener) or never (a zero
 * wait answered every call that had to wait NFS3ERR_JUKEBOX at once).
 */
class NfsServerBuilderTest {
    private static final Duration SECOND = Duration.ofSeconds(1);
    /** Longer than a long counts in nanoseconds (292 years). */
    private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

    private static NfsServer.Builder builder() {
        return NfsServer.builder(Path.of("/nonexistent-export")); // nothing is opened before start()
    }

    private static void refused(String option, String value, Executable setting) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, setting);
        assertTrue(e.getMessage().startsWith(option + " " + value + ": must be "), e.getMessage());
    }

    @Test
    void creditsOutsideOneTo16384AreRefusedNamingTheValue() {
        refused("credits", "0", () -> builder().credits(0));
        refused("credits", "-1", () -> builder().credits(-1));
        refused("credits", "-2147483648", () -> builder().credits(Integer.MIN_VALUE));
        refused("credits", "16385", () -> builder().credits(16385));
        NfsServer.Builder b = builder();
        assertSame(b, b.credits(1));
        assertSame(b, b.credits(OptionRanges.MAX_CREDITS));
    }

    @Test
    void rdmaTimeoutMustBePositiveAndCountableInNanoseconds() {
        refused("rdmaTimeout", "PT0S", () -> builder().rdmaTimeout(Duration.ZERO));
        refused("rdmaTimeout", "PT-1S", () -> builder().rdmaTimeout(SECOND.negated()));
        refused("rdmaTimeout", FOREVER.toString(), () -> builder().rdmaTimeout(FOREVER));
        assertThrows(NullPointerException.class, () -> builder().rdmaTimeout(null));
        NfsServer.Builder b = builder();
        assertSame(b, b.rdmaTimeout(Duration.ofNanos(1)));
        assertSame(b, b.rdmaTimeout(Duration.ofNanos(Long.MAX_VALUE)));
    }

    @Test
    void eachWaitMustBePositiveAndIsNamedWhenItIsNot() {
        refused("waits: resource", "PT0S", () -> builder().waits(Duration.ZERO, SECOND));
        refused("waits: resource", "PT-0.001S", () -> builder().waits(Duration.ofMillis(-1), SECOND));
        refused("waits: running", "PT0S", () -> builder().waits(SECOND, Duration.ZERO));
        refused("waits: running", "PT-1S", () -> builder().waits(SECOND, SECOND.negated()));
        refused("waits: running", FOREVER.toString(), () -> builder().waits(SECOND, FOREVER));
        assertThrows(NullPointerException.class, () -> builder().waits(null, SECOND));
        assertThrows(NullPointerException.class, () -> builder().waits(SECOND, null));
        NfsServer.Builder b = builder();
        assertSame(b, b.waits(Duration.ofMillis(1), Duration.ofHours(1)));
    }

    @Test
    void threadsOutsideOneToKnfsdsMostAreRefused() {
        refused("threads", "0", () -> builder().threads(0));
        refused("threads", "-16", () -> builder().threads(-16));
        // 64 queued calls a thread: a count this large would overflow the queue's size (threads * 64)
        refused("threads", "33554432", () -> builder().threads(33_554_432));
        refused("threads", "8193", () -> builder().threads(OptionRanges.MAX_THREADS + 1));
        NfsServer.Builder b = builder();
        assertSame(b, b.threads(1));
        assertSame(b, b.threads(OptionRanges.MAX_THREADS));
    }

    @Test
    void eachBufferCountMustBeAtLeastOneAndIsNamed() {
        refused("buffers: small", "0", () -> builder().buffers(0, 4));
        refused("buffers: large", "-1", () -> builder().buffers(8, -1));
        NfsServer.Builder b = builder();
        assertSame(b, b.buffers(1, 1));
    }

    /** The command line reaches the same checks: {@code --credits 0} fails while the options are read. */
    @Test
    void theCommandsCreditsOptionIsCheckedAsItIsRead() {
        refused(
                "credits",
                "0",
                () -> NfsServerMain.configure(
                        Path.of("/nonexistent-export"), List.<String[]>of(new String[] {"--credits", "0"})));
        refused(
                "threads",
                "0",
                () -> NfsServerMain.configure(
                        Path.of("/nonexistent-export"), List.<String[]>of(new String[] {"--threads", "0"})));
    }
}
