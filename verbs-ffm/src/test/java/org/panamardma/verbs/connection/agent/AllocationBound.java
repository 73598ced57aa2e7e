package org.panamardma.verbs.connection.agent;

import java.lang.management.ManagementFactory;

/**
 * The allocation check of the agent's fuzz target (rpcrdma/FUZZING.md has the same for the RPC decoders): what one
 * step allocates on this thread, against a bound the target states. One-time class loading and call-site linkage
 * must not count, so a step over the bound is measured again on a twin (the same step on an identical copy of the
 * state: a stateful step cannot simply be repeated); only the twin over the bound fails.
 */
final class AllocationBound {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static {
        THREADS.setThreadAllocatedMemoryEnabled(true);
    }

    private AllocationBound() {}

    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    /**
     * Runs {@code step}, then {@code twin} (measured if {@code step} went over the bound), and fails if the twin
     * allocated more than {@code bound} too.
     */
    static void within(String what, long bound, Step step, Step twin) throws Exception {
        long first = allocatedBy(step);
        if (first <= bound) {
            twin.run();
            return;
        }
        long second = allocatedBy(twin);
        if (second > bound) {
            throw new AssertionError(
                    what + " allocated " + second + " bytes (first run " + first + "), more than " + bound);
        }
    }

    private static long allocatedBy(Step step) throws Exception {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        step.run();
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }
}
