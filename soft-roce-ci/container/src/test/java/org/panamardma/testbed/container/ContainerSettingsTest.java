package org.panamardma.testbed.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerSettingsTest {
    @TempDir
    Path work;

    @Test
    void defaultsAreTheLocalImagePrivilegedOnTheHostsNetwork() {
        ContainerSettings s = ContainerSettings.fromSystemProperties(work);
        assertEquals(ContainerSettings.DEFAULT_IMAGE, s.image());
        assertEquals(ContainerSettings.Network.HOST, s.network());
        assertTrue(s.privileged());
        assertEquals(work.resolve("soft-roce-ci/container/setup-devices.sh"), s.setupScript());
    }

    @Test
    void propertiesChangeImageNetworkAndPrivilege() {
        System.setProperty("panama.testbed.container.image", "local/other:1");
        System.setProperty("panama.testbed.container.network", "own");
        System.setProperty("panama.testbed.container.privileged", "false");
        try {
            ContainerSettings s = ContainerSettings.fromSystemProperties(work);
            assertEquals("local/other:1", s.image());
            assertEquals(ContainerSettings.Network.OWN, s.network());
            assertFalse(s.privileged());
        } finally {
            System.clearProperty("panama.testbed.container.image");
            System.clearProperty("panama.testbed.container.network");
            System.clearProperty("panama.testbed.container.privileged");
        }
    }

    @Test
    void theWorkTreeMustBeAFolder() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new ContainerSettings("x", work.resolve("missing"), ContainerSettings.Network.HOST, true));
    }
}
