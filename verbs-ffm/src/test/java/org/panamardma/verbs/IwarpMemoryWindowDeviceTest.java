package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** Soft-iWARP has no memory windows: asked for one, the library says so, naming the device, and allocates nothing. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpMemoryWindowDeviceTest {
    @Test
    void aWindowIsRefusedNamingTheDevice(RdmaTestDevice device) throws RdmaException {
        try (Context ctx = Context.open(device.name());
                ProtectionDomain pd = ctx.allocateProtectionDomain()) {
            assertFalse(ctx.attributes().supportsMemoryWindows(), "siw's device_cap_flags have no type 2 windows");
            UnsupportedOperationException e =
                    assertThrows(UnsupportedOperationException.class, pd::allocateMemoryWindow);
            assertTrue(e.getMessage().contains(device.name()), e.getMessage());
            pd.allocate(64, java.util.Set.of(Access.LOCAL_WRITE)).close(); // the PD is intact
        }
    }
}
