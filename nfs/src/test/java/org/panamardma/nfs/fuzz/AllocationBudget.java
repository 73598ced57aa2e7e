package org.panamardma.nfs.fuzz;

import java.lang.management.ManagementFactory;

/**
 * The allocation check of the fuzz targets (nfs/FUZZING.md), as rpcrdma's {@code org.panamardma.fuzz.AllocationBudget}
 * (a named module's test classes cannot be shared with another module's tests, hence this copy): a decode of
 * hostile bytes may allocate at most a bound each target states from its decoder's limits, measured as the bytes
 * the current thread allocated on the heap around the decode. A run over the bound is repeated once, and only a
 * second run over it fails: one-time class loading and call-site linkage do not repeat, an input-driven allocation
 * does.
 */
public final class AllocationBudget {
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

    /** One decode; it catches the typed exceptions its decoder declares, anything else escapes as a finding. */
    @FunctionalInterface
    public interface Decode {
        void run() throws Exception;
    }

    /**
     * Runs {@code decode} and fails if it allocates more than {@code bound} bytes on this thread, twice in a row.
     *
     * @throws AssertionError if the bound is exceeded
     */
    public static void within(String what, long bound, Decode decode) throws Exception {
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

    /** @return the bytes the current thread allocated while running {@code decode} */
    public static long allocatedBy(Decode decode) throws Exception {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        decode.run();
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }
}
