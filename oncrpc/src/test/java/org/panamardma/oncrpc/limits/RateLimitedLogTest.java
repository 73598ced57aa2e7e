package org.panamardma.oncrpc.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {
    @Test
    void oneWarnLinePerIntervalTheRestCounted() {
        AtomicLong now = new AtomicLong(1_000);
        RateLimitedLog log =
                new RateLimitedLog(LoggerFactory.getLogger(RateLimitedLogTest.class), Duration.ofSeconds(10), now::get);
        assertTrue(log.warn(() -> "first refusal"));
        int warned = 0;
        for (int i = 0; i < 10_000; i++) {
            now.addAndGet(1_000_000); // 10,000 refusals over 10 s
            if (log.warn(() -> "refusal")) {
                warned++;
            }
        }
        assertEquals(1, warned, "one more line, the last, when the 10 s had passed");
        assertEquals(0, log.suppressed(), "counted from that line on");
        assertFalse(log.warn(() -> "at once again"));
        assertEquals(1, log.suppressed());
        now.addAndGet(Duration.ofSeconds(10).toNanos());
        assertTrue(log.warn(() -> "later"));
        assertEquals(0, log.suppressed());
    }
}
