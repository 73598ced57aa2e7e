package org.panamardma.testing;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The fuzz targets' allocation check can fail, and passes what stays under its bound. */
class AllocationBudgetTest {
    private static volatile Object sink;

    @Test
    void aDecodeThatAllocatesOverItsBoundEveryTimeFails() {
        AssertionError e = assertThrows(
                AssertionError.class,
                () -> AllocationBudget.within("greedy", 64 << 10, () -> sink = new byte[1 << 20]));
        assertTrue(e.getMessage().contains("greedy allocated"), e.getMessage());
    }

    @Test
    void aDecodeUnderItsBoundPasses() {
        assertDoesNotThrow(() -> AllocationBudget.within("modest", 64 << 10, () -> sink = new byte[1024]));
    }

    @Test
    void oneTimeCostsOnTheFirstRunAreForgiven() {
        int[] runs = {0};
        assertDoesNotThrow(() ->
                AllocationBudget.within("warming up", 64 << 10, () -> sink = new byte[runs[0]++ == 0 ? 1 << 20 : 16]));
        assertTrue(runs[0] == 2);
    }
}
