package org.panamardma.testing;

import java.lang.management.ManagementFactory;

/**
 * The allocation check of the fuzz targets of every module (rpcrdma/FUZZING.md, nfs/FUZZING.md): a decode of
 * hostile bytes may allocate at most a bound that each target states from its decoder's limits, typically a
 * constant plus a multiple of the input length.
 * Measured as the bytes the current thread allocated on the heap around the decode.
 *
 * <p>The first run of a code path in a JVM also pays for one-time work that is not the decoder's doing: class
 * loading and initialization, linkage of {@code invokedynamic} string concatenations and lambdas, the first
 * exception of a type. So a run over the bound is repeated once, and only a second run over the bound fails: an
 * allocation driven by the input repeats, one-time linkage does not.
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

    private AllocationBudget() {}

    /** One decode; it catches the typed exceptions its decoder declares, anything else escapes as a finding. */
    @FunctionalInterface
    public interface Decode {
        /**
         * Decodes once.
         *
         * @throws Exception what the decoder throws
         */
        void run() throws Exception;
    }

    /**
     * Runs {@code decode} and fails if it allocates more than {@code bound} bytes on this thread, twice in a row.
     *
     * @param what names the decode in the failure
     * @param bound the most bytes one run may allocate
     * @param decode the decode to run, once or twice
     * @throws AssertionError if the bound is exceeded
     * @throws Exception what {@code decode} throws
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

    /**
     * Measures one run of {@code decode}.
     *
     * @param decode the decode to run once
     * @return the bytes the current thread allocated while running {@code decode}
     * @throws Exception what {@code decode} throws
     */
    public static long allocatedBy(Decode decode) throws Exception {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        decode.run();
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }
}
