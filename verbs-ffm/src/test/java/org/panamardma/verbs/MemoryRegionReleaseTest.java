package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.panamardma.testing.LogCapture;

/**
 * What {@link MemoryRegion#destroy()} does with the memory it owns once {@code ibv_dereg_mr} has answered: freed
 * only when the deregistration succeeded; leaked, with a WARNING naming the region, when it failed (the device may
 * still write it). The decision is a package-private static so it can be checked without a device.
 */
class MemoryRegionReleaseTest {
    @RegisterExtension
    private final LogCapture log = LogCapture.of(MemoryRegion.class);

    @Test
    void aFailedDeregistrationLeavesTheOwnedMemoryAllocatedAndWarnsNamingTheRegion() {
        Arena owned = Arena.ofShared();
        MemorySegment memory = owned.allocate(4096, 4096);
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> MemoryRegion.releaseAfterDeregistration(
                        Errno.EBUSY, owned, "memory region of 4096 bytes (rkey 0x1234)"));
        assertTrue(
                e.getMessage().contains("EBUSY")
                        && e.getMessage().contains("rkey 0x1234")
                        && e.getMessage().contains("leaked"),
                e.getMessage());
        // still allocated: usable, and closable by nobody but its (now lost) owner
        assertTrue(owned.scope().isAlive(), "the memory must not be freed");
        memory.set(ValueLayout.JAVA_LONG, 0, 42L);
        assertEquals(1, log.records().size(), "one warning");
        LogRecord r = log.records().get(0);
        assertEquals(Level.WARNING, r.getLevel());
        assertTrue(
                r.getMessage().contains("ibv_dereg_mr failed (EBUSY)")
                        && r.getMessage().contains("rkey 0x1234")
                        && r.getMessage().contains("deliberately leaked"),
                r.getMessage());
        owned.close(); // only so the test does not leak
    }

    @Test
    void aFailedDeregistrationOfCallerMemoryWarnsItsOwnerNotToFreeIt() {
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> MemoryRegion.releaseAfterDeregistration(Errno.EINVAL, null, "memory region X"));
        assertTrue(e.getMessage().contains("must not be freed"), e.getMessage());
        assertEquals(1, log.records().size());
        assertTrue(
                log.records().get(0).getMessage().contains("memory region X"),
                log.records().get(0).getMessage());
    }

    @Test
    void aSuccessfulDeregistrationFreesTheOwnedMemoryQuietly() {
        Arena owned = Arena.ofShared();
        owned.allocate(64);
        MemoryRegion.releaseAfterDeregistration(0, owned, "memory region Y");
        assertFalse(owned.scope().isAlive());
        assertTrue(log.records().isEmpty(), "no warning: " + log.records());
        MemoryRegion.releaseAfterDeregistration(0, null, "memory region Z"); // caller's memory: nothing to free
    }
}
