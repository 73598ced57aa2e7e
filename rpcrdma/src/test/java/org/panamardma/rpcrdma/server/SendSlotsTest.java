package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Issue 25 item 7: a Send buffer goes back only when its Send has completed. At 5c5f9a1 {@code ServerConnection}
 * put the buffer back on its free list in the call's {@code finally}, also when the wait for the Send had timed out
 * with the work request still queued, so the next call could encode its reply into memory the device was about to
 * send.
 */
class SendSlotsTest {
    @Test
    void aBufferWhoseSendTimedOutStaysOutUntilTheSendCompletes() throws Exception {
        SendSlots slots = new SendSlots(2);
        int slot = slots.take();
        CompletableFuture<Void> send = new CompletableFuture<>(); // posted, not completed: the device holds it
        CompletableFuture<Void> unused = slots.giveBackWhenDone(slot, send, in(10_000)); // the call waits on send here
        assertThrows(TimeoutException.class, () -> send.get(10, TimeUnit.MILLISECONDS), "the call stops waiting");
        assertEquals(1, slots.free(), "the buffer is still the device's");
        int other = slots.take();
        assertThrows(IllegalStateException.class, slots::take, "and no call can have it");
        send.complete(null); // the Send completes (or is flushed when the connection closes)
        assertEquals(1, slots.free());
        assertEquals(slot, slots.take());
        slots.giveBack(other);
    }

    /**
     * A call that waits on the future giveBackWhenDone returns wakes only with its buffer back, so the next call,
     * which may start as soon as this one frees its call slot, always finds one. Waiting on the Send itself did not
     * ensure it: a thread blocked in get() is woken before the callbacks registered earlier run, and with 4 credits
     * under load the next call found no buffer (a rehearsal on 2026-11-27, the connection closed).
     */
    @Test
    void aCallWaitingForItsSendWakesWithItsBufferBack() throws Exception {
        SendSlots slots = new SendSlots(1);
        for (int round = 0; round < 2000; round++) {
            int slot = slots.take();
            CompletableFuture<Void> send = new CompletableFuture<>();
            CompletableFuture<Void> done = slots.giveBackWhenDone(slot, send, in(10_000));
            int[] freeWhenWoken = {-1};
            Thread call = Thread.ofPlatform().start(() -> {
                try {
                    done.get(10, TimeUnit.SECONDS);
                    freeWhenWoken[0] = slots.free();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            while (call.getState() != Thread.State.TIMED_WAITING && call.isAlive()) {
                Thread.onSpinWait(); // the call blocks in get() before the Send completes
            }
            send.complete(null); // the poller thread
            call.join();
            assertEquals(1, freeWhenWoken[0], "round " + round + ": the buffer, when the call woke");
        }
    }

    @Test
    void aFlushedSendGivesItsBufferBackToo() {
        SendSlots slots = new SendSlots(1);
        int slot = slots.take();
        CompletableFuture<Void> send = new CompletableFuture<>();
        CompletableFuture<Void> unused = slots.giveBackWhenDone(slot, send, in(10_000)); // the call waits on send here
        send.completeExceptionally(new java.io.IOException("WR_FLUSH_ERR"));
        assertEquals(1, slots.free());
    }

    /** A reply due {@code millis} from now. */
    private static SendSlots.Pending in(long millis) {
        return new SendSlots.Pending(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis), millis, false);
    }

    /**
     * The server's watch finds a reply whose Send is past its deadline, and only while the Send is outstanding: no
     * call thread waits for its Send, so this is the only place a Send that never completes is noticed.
     */
    @Test
    void aSendPastItsDeadlineIsOverdueUntilItCompletes() {
        SendSlots slots = new SendSlots(2);
        long now = System.nanoTime();
        int early = slots.take();
        int late = slots.take();
        CompletableFuture<Void> earlySend = new CompletableFuture<>();
        CompletableFuture<Void> lateSend = new CompletableFuture<>();
        var _ = slots.giveBackWhenDone(early, earlySend, new SendSlots.Pending(now + 1_000, 1, false));
        var _ = slots.giveBackWhenDone(late, lateSend, new SendSlots.Pending(now + 5_000, 5, true));
        assertNull(slots.overdue(now), "nothing is due yet");
        assertEquals(1, slots.overdue(now + 2_000).waitMillis(), "the first past its deadline");
        earlySend.complete(null);
        assertNull(slots.overdue(now + 2_000), "a completed Send is not overdue");
        SendSlots.Pending found = slots.overdue(now + 6_000);
        assertEquals(5, found.waitMillis());
        assertTrue(found.withWrites());
        lateSend.completeExceptionally(new java.io.IOException("WR_FLUSH_ERR"));
        assertNull(slots.overdue(now + 6_000), "nor a flushed one");
        assertEquals(2, slots.free());
    }
}
