package org.panamardma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.Device;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.TransportType;

/** The README's "Device tests" example, as it is written there. */
class ReadmeDeviceTestExampleTest {
    // spotless:off (the README shows this region as written here: ReadmeExamplesTest)
    // README begin: device-test
    @Test
    @RdmaDeviceTest(transport = Transport.IWARP)
    void listsTheSoftIwarpDevice(RdmaTestDevice device) throws RdmaException {
        assertEquals(TransportType.IWARP, Device.byName(device.name()).orElseThrow().transportType());
    }
    // README end
    // spotless:on
}
