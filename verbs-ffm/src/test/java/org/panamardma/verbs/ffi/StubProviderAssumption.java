package org.panamardma.verbs.ffi;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * For tests on the stub provider: loads it, or skips the test where it cannot be built (no gcc, no header set),
 * except where a missing prerequisite must fail ({@code -Drdma.require=true}, or CI=true: as the ABI check,
 * {@link AbiTest#required()}). Kept apart from {@link StubProvider}, which the benchmarks use without JUnit.
 */
public final class StubProviderAssumption {
    private StubProviderAssumption() {}

    public static void load() throws Exception {
        try {
            StubProvider.load();
        } catch (StubProvider.UnavailableException e) {
            if (AbiTest.required()) {
                fail("rdma.require is set (or CI=true) and " + e.getMessage());
            }
            Assumptions.abort(e.getMessage());
        }
    }
}
