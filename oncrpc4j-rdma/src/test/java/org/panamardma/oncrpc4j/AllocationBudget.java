package org.panamardma.oncrpc4j;

import java.lang.management.ManagementFactory;

/**
 * The allocation check of the bridge's fuzz target, as rpcrdma's {@code org.panamardma.fuzz.AllocationBudget}
 * (rpcrdma/FUZZING.md; that class lives in rpcrdma's test sources, which this module's tests do not see): the bytes
 * the current thread allocated around a decode, against a bound the target states; a run over the bound is repeated
 * once, so that one-time class loading and linkage do not count.
 */
final class AllocationBudget {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static {
        if (!THREADS.isThreadAllocatedMemorySupported()) {
            throw new ExceptionInInitializerError("this JVM cannot measure a thread's allocations");
        }
        THREADS.setThreadAllocatedMemoryEnabled(true);
    }

    private AllocationBudget() {
    }

    @FunctionalInterface
    interface Decode {
        void run() throws Exception;
    }

    static void within(String what, long bound, Decode decode) throws Exception {
        long first = allocatedBy(decode);
        if (first <= bound) {
            return;
        }
        long second = allocatedBy(decode);
        if (second > bound) {
            throw new AssertionError(what + " allocated " + second + " bytes (first run " + first
                    + "), more than its bound of " + bound + " bytes");
        }
    }

    static long allocatedBy(Decode decode) throws Exception {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        decode.run();
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }
}
