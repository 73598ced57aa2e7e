package org.panamardma.verbs.connection;

import java.util.concurrent.CompletableFuture;
import java.util.function.LongUnaryOperator;
import org.panamardma.verbs.extensions.MaskedAtomics;
import org.panamardma.verbs.trusted.Callbacks;

/**
 * RFC 7306's masked atomics over a device's plain CmpSwap, without blocking: the asynchronous form of
 * {@link MaskedAtomics}' loops for {@link RdmaConnection#maskedFetchAdd} and {@link RdmaConnection#maskedCompareSwap}
 * where the device executes the atomics. An atomic read (CmpSwap of 0 with 0, which changes nothing), then
 * CmpSwap of the value read with its new value until no one else changed the word in between; the result is the
 * value replaced (or found, when a masked compare fails: that value was confirmed by a CmpSwap of itself).
 */
final class MaskedAtomicLoop {
    private MaskedAtomicLoop() {}

    /**
     * The one native atomic the loop is built on: {@link RdmaConnection#compareSwap}, completing with the word's
     * previous value (a seam, so that the loop's handling of each attempt's outcome is tested without a device).
     */
    @FunctionalInterface
    interface CompareSwap {
        CompletableFuture<Long> compareSwap(long address, int rkey, long compare, long swap);
    }

    static CompletableFuture<Long> fetchAdd(CompareSwap c, long address, int rkey, long add, long addMask) {
        return loop(c, address, rkey, original -> MaskedAtomics.fieldwiseAdd(original, add, addMask));
    }

    static CompletableFuture<Long> compareSwap(
            CompareSwap c, long address, int rkey, long compare, long compareMask, long swap, long swapMask) {
        return loop(
                c, address, rkey, original -> MaskedAtomics.maskedSwap(original, compare, compareMask, swap, swapMask));
    }

    private static CompletableFuture<Long> loop(CompareSwap c, long address, int rkey, LongUnaryOperator next) {
        CompletableFuture<Long> result = new CompletableFuture<>();
        attempt(c, address, rkey, next, 0L, result);
        return result;
    }

    /** One CmpSwap expecting {@code expected}; the next attempt starts from the value it found. */
    private static void attempt(
            CompareSwap c,
            long address,
            int rkey,
            LongUnaryOperator next,
            long expected,
            CompletableFuture<Long> result) {
        CompletableFuture<Long> swap;
        try {
            swap = c.compareSwap(address, rkey, expected, next.applyAsLong(expected));
        } catch (RuntimeException e) { // a later attempt runs in a completion callback: nobody else would see it
            result.completeExceptionally(e);
            return;
        }
        Callbacks.whenDone(swap, "a masked atomic's compare-and-swap loop", (actual, t) -> {
            if (t != null) {
                result.completeExceptionally(t);
            } else if (actual == expected) {
                result.complete(actual);
            } else {
                attempt(c, address, rkey, next, actual, result);
            }
        });
    }
}
