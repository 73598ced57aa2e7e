package org.panamardma.verbs.extensions;

import org.panamardma.verbs.RdmaException;

/**
 * One 64-bit word that can be compare-and-swapped atomically, synchronously: the primitive the masked atomics are
 * built on. {@link QueuePairRemoteWord} is the one over an RDMA CmpSwap.
 */
public interface RemoteWord {
    /**
     * Atomically: if the word equals {@code expected} it becomes {@code desired}. Returns the value the word had
     * before (so the swap happened iff the result equals {@code expected}).
     */
    long compareAndSwap(long expected, long desired) throws RdmaException;
}
