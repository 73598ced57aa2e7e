package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.connection.ServerStreamStart.Unread;

/**
 * When the server side of siw's stream-start race probes: only for bytes that stay unread, unchanged, for
 * {@link ServerStreamStart#QUIET_NANOS}. A zero-length READ that reaches a client while it sends ends the connection
 * (rehearsal r31: the server probed at once on bytes the client's own next probe was about to wake, and its READ
 * arrived among the client's next five calls), so bytes on their way to the queue pair must not count as stuck.
 */
class ServerStreamStartTest {
    private static final long MS = 1_000_000L;
    private static final long TIMEOUT = 60_000 * MS;

    /** A clock that moves only when waited on, and the looks at the socket it has answered. */
    private static final class FakeTime implements ServerStreamStart.Time {
        long now = 1_000 * MS;
        int looks;

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void sleepNanos(long nanos) {
            now += nanos;
        }

        /** The socket's unread bytes, one value per look; the last value stays. */
        Supplier<OptionalLong> socket(long... values) {
            Deque<Long> left = new ArrayDeque<>();
            for (long v : values) {
                left.add(v);
            }
            return () -> {
                looks++;
                long v = left.size() > 1 ? left.removeFirst() : left.getFirst();
                return v < 0 ? OptionalLong.empty() : OptionalLong.of(v);
            };
        }
    }

    @Test
    void anEmptySocketIsNotProbedAndNotWaitedFor() throws Exception {
        FakeTime t = new FakeTime();
        long start = t.now;
        assertEquals(Unread.NONE, ServerStreamStart.settle(t.socket(0), t, TIMEOUT));
        assertEquals(start, t.now, "no wait");
        assertEquals(1, t.looks);
    }

    @Test
    void bytesTheQueuePairReadsSoonAreNotStuck() throws Exception {
        // r31's case: the client's first probe waits in the socket at ESTABLISHED; its second one, 20 ms later,
        // wakes the queue pair, which reads both
        FakeTime t = new FakeTime();
        long start = t.now;
        assertEquals(Unread.NONE, ServerStreamStart.settle(t.socket(48, 48, 0), t, TIMEOUT));
        assertTrue(t.now - start < ServerStreamStart.QUIET_NANOS, "done as soon as the bytes were read");
    }

    @Test
    void bytesThatStayUnchangedForTheQuietPeriodAreStuck() throws Exception {
        // a client that sent one call and waits for its reply: its bytes stay, nothing else comes
        FakeTime t = new FakeTime();
        long start = t.now;
        assertEquals(Unread.STUCK, ServerStreamStart.settle(t.socket(68), t, TIMEOUT));
        long waited = t.now - start;
        assertTrue(waited >= ServerStreamStart.QUIET_NANOS, "waited " + waited);
        assertTrue(waited < ServerStreamStart.QUIET_NANOS + ServerStreamStart.LOOK_EVERY_NANOS + 1, "waited " + waited);
    }

    @Test
    void aChangeStartsTheQuietPeriodAgain() throws Exception {
        // more bytes came (the client sent on, or the queue pair read part): not settled until they stay
        FakeTime t = new FakeTime();
        long start = t.now;
        long[] looks = new long[16];
        Arrays.fill(looks, 68);
        looks[15] = 136; // the 16th look, 150 ms in, sees more
        assertEquals(Unread.STUCK, ServerStreamStart.settle(t.socket(append(looks, 136)), t, TIMEOUT));
        long waited = t.now - start;
        assertTrue(
                waited >= 150 * MS + ServerStreamStart.QUIET_NANOS, "the wait started again at the change: " + waited);
    }

    @Test
    void aSocketThatCannotBeSeenIsUnknown() throws Exception {
        FakeTime t = new FakeTime();
        assertEquals(Unread.UNKNOWN, ServerStreamStart.settle(t.socket(-1), t, TIMEOUT));
        // and one that goes away while watched (the connection ended)
        FakeTime u = new FakeTime();
        assertEquals(Unread.UNKNOWN, ServerStreamStart.settle(u.socket(68, 68, -1), u, TIMEOUT));
    }

    @Test
    void bytesThatNeverSettleCountAsStuckAtTheTimeout() throws Exception {
        // a count that changes at every look (a hostile or very slow peer) cannot keep the server looking for ever
        FakeTime t = new FakeTime();
        long start = t.now;
        long[] growing = new long[10_000];
        for (int i = 0; i < growing.length; i++) {
            growing[i] = 68 + i;
        }
        assertEquals(Unread.STUCK, ServerStreamStart.settle(t.socket(growing), t, 2_000 * MS));
        assertTrue(t.now - start <= 2_000 * MS + ServerStreamStart.LOOK_EVERY_NANOS, "bounded by the timeout");
    }

    private static long[] append(long[] a, long v) {
        long[] r = Arrays.copyOf(a, a.length + 1);
        r[a.length] = v;
        return r;
    }
}
