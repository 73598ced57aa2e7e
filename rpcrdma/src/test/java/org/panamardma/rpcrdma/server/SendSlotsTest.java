package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
        slots.giveBackWhenDone(slot, send);
        assertThrows(TimeoutException.class, () -> send.get(10, TimeUnit.MILLISECONDS), "the call stops waiting");
        assertEquals(1, slots.free(), "the buffer is still the device's");
        int other = slots.take();
        assertThrows(IllegalStateException.class, slots::take, "and no call can have it");
        send.complete(null); // the Send completes (or is flushed when the connection closes)
        assertEquals(1, slots.free());
        assertEquals(slot, slots.take());
        slots.giveBack(other);
    }

    @Test
    void aFlushedSendGivesItsBufferBackToo() {
        SendSlots slots = new SendSlots(1);
        int slot = slots.take();
        CompletableFuture<Void> send = new CompletableFuture<>();
        slots.giveBackWhenDone(slot, send);
        send.completeExceptionally(new java.io.IOException("WR_FLUSH_ERR"));
        assertEquals(1, slots.free());
    }
}
