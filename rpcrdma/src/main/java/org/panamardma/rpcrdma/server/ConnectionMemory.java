package org.panamardma.rpcrdma.server;

import java.util.Objects;
import org.panamardma.oncrpc.limits.MemoryBudget;

/**
 * The memory one connection's calls may take while they run: heap bytes (Long Calls, replies that outgrow the Send
 * buffer) and pinned bytes (memory registered for RDMA Read and Write, calls assembled with their Read chunks), each
 * a {@link MemoryBudget} drawing on the server's, and how long a call waits for them before it is refused.
 *
 * @param heap the connection's heap budget
 * @param pinned the connection's budget of registered (pinned) memory
 * @param waitNanos how long a call waits for memory held by other calls before it is answered with an error
 */
public record ConnectionMemory(MemoryBudget heap, MemoryBudget pinned, long waitNanos) {
    /**
     * No limits: for tests of the protocol logic alone.
     *
     * @return budgets of {@code Long.MAX_VALUE}
     */
    public static ConnectionMemory unlimited() {
        return new ConnectionMemory(
                MemoryBudget.of("heap", Long.MAX_VALUE), MemoryBudget.of("pinned", Long.MAX_VALUE), 0);
    }

    /**
     * Checks the components.
     *
     * @throws NullPointerException if a budget is null
     * @throws IllegalArgumentException if {@code waitNanos} is negative
     */
    public ConnectionMemory {
        Objects.requireNonNull(heap, "heap");
        Objects.requireNonNull(pinned, "pinned");
        if (waitNanos < 0) {
            throw new IllegalArgumentException("waitNanos must not be negative");
        }
    }
}
