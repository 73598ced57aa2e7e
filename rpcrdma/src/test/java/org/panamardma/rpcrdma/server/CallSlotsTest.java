package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * No more calls run on a connection than the credits it granted, also while it closes. Before {@link CallSlots}
 * the server's close released one permit more of a plain semaphore to wake its receive loop, and a loop that waited
 * at that moment took it as a real slot: CI on siw saw five calls in progress against four credits
 * ({@code IwarpServerBoundsDeviceTest.aFloodFarBeyondTheCreditsEndsNoOtherConnection}).
 */
class CallSlotsTest {
    @Test
    void aWaiterAtTheCloseGetsNoSlot() throws Exception {
        CallSlots slots = new CallSlots(4);
        for (int i = 0; i < 4; i++) {
            assertTrue(slots.take(), "slot " + i);
        }
        CompletableFuture<Boolean> waiter = waitForSlot(slots);
        assertThrows(TimeoutException.class, () -> waiter.get(100, TimeUnit.MILLISECONDS), "all four are taken");
        slots.close();
        assertFalse(waiter.get(10, TimeUnit.SECONDS), "woken by the close, without a fifth slot");
    }

    @Test
    void afterTheCloseNoSlotIsGivenOutEvenWhenCallsEnd() throws Exception {
        CallSlots slots = new CallSlots(2);
        assertTrue(slots.take());
        assertTrue(slots.take());
        slots.close();
        slots.giveBack(); // the calls in flight end after the close
        slots.giveBack();
        for (int i = 0; i < 5; i++) {
            assertFalse(slots.take(), "take " + i + " after the close");
        }
        assertEquals(3, slots.free(), "the slots given back and the close's: a take that got none keeps none");
    }

    @Test
    void beforeTheCloseASlotGivenBackIsTakenAgain() throws Exception {
        CallSlots slots = new CallSlots(1);
        assertTrue(slots.take());
        CompletableFuture<Boolean> waiter = waitForSlot(slots);
        assertThrows(TimeoutException.class, () -> waiter.get(100, TimeUnit.MILLISECONDS), "the one slot is taken");
        slots.giveBack();
        assertTrue(waiter.get(10, TimeUnit.SECONDS), "the call ended: its slot goes to the next message");
        assertEquals(0, slots.free());
    }

    @Test
    void noCreditsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CallSlots(0));
    }

    /** {@return what a receive loop's take gets, on a thread of its own} */
    private static CompletableFuture<Boolean> waitForSlot(CallSlots slots) {
        CompletableFuture<Boolean> took = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                took.complete(slots.take());
            } catch (InterruptedException | RuntimeException e) {
                took.completeExceptionally(e);
            }
        });
        return took;
    }
}
