package org.panamardma.rpcrdma.server;

import org.panamardma.oncrpc.limits.MemoryBudget;

/**
 * A call needed more memory than its budgets could give within the wait: the call is answered with an error and
 * the connection goes on. Unchecked, so that it passes through the {@link ChunkTransfers} and XDR encoding calls
 * between where memory is taken and where the call is answered.
 */
final class MemoryRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient MemoryBudget budget;
    private final long bytes;

    MemoryRefused(MemoryBudget budget, long bytes) {
        super(bytes + " bytes refused by " + budget, null, false, false);
        this.budget = budget;
        this.bytes = bytes;
    }

    MemoryBudget budget() {
        return budget;
    }

    long bytes() {
        return bytes;
    }
}
