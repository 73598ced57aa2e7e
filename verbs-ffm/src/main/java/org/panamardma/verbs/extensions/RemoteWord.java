package org.panamardma.verbs.extensions;

import org.panamardma.verbs.RdmaException;

/**
 * One 64-bit word that can be compare-and-swapped atomically, synchronously: the primitive the masked atomics are
 * built on. {@link QueuePairRemoteWord} is the one over an RDMA CmpSwap.
 */
public interface RemoteWord {
    /**
     * Atomically: if the word equals {@code expected} it becomes {@code desired}. Returns the value the word had
     * before (so the swap happened iff the result equals {@code expected}). Named like the other compare-and-swaps
     * of the API ({@code QueuePair.postCompareSwap}, {@code RdmaConnection.compareSwap}, {@link MaskedAtomics}).
     *
     * @param expected the value the word must hold for the swap
     * @param desired  the value it then gets
     * @return the value the word had before
     * @throws RdmaException if the operation failed
     */
    long compareSwap(long expected, long desired) throws RdmaException;

    /**
     * The former name of {@link #compareSwap}, which it calls.
     *
     * @param expected the value the word must hold for the swap
     * @param desired  the value it then gets
     * @return the value the word had before
     * @throws RdmaException if the operation failed
     * @deprecated one spelling per operation: use {@link #compareSwap}
     */
    @Deprecated(forRemoval = true)
    default long compareAndSwap(long expected, long desired) throws RdmaException {
        return compareSwap(expected, desired);
    }
}
