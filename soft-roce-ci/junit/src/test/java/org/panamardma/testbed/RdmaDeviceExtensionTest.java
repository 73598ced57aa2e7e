package org.panamardma.testbed;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.container;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.skippedWithReason;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineTestKit;

/** Runs a device test on a machine description with no devices, with and without rdma.require. */
class RdmaDeviceExtensionTest {
    @TempDir
    Path tmp;

    /** Not run directly (the nested class is static and only selected by the test kit). */
    @RdmaDeviceTest(transport = Transport.IWARP)
    static class NeedsIwarp {
        @Test
        void uses(RdmaTestDevice device) {
            throw new AssertionError("must not run without a device, got " + device);
        }
    }

    private Path emptyDescriptor() throws IOException {
        Path descriptor = tmp.resolve("devices.properties");
        Files.writeString(descriptor, "# a testbed with no devices\n");
        return descriptor;
    }

    @Test
    void withoutDeviceTheTestIsSkippedWithHowToRunIt() throws IOException {
        // the extension reads system properties; they are set around each run
        withProperties(
                emptyDescriptor(),
                "false",
                () -> EngineTestKit.engine("junit-jupiter")
                        .selectors(selectClass(NeedsIwarp.class))
                        .execute()
                        .allEvents()
                        .assertThatEvents()
                        // the class-level annotation skips the whole class, with the reason and how to run it
                        .haveExactly(
                                1,
                                event(
                                        container(NeedsIwarp.class),
                                        skippedWithReason(
                                                r -> r.contains("transport IWARP") && r.contains("./run-tests.sh"))))
                        .doNotHave(event(test("uses"), finishedWithFailure())));
    }

    @Test
    void withRdmaRequireAMissingDeviceFailsTheTest() throws IOException {
        withProperties(
                emptyDescriptor(),
                "true",
                () -> EngineTestKit.engine("junit-jupiter")
                        .selectors(selectClass(NeedsIwarp.class))
                        .execute()
                        .testEvents()
                        .assertThatEvents()
                        .haveExactly(
                                1,
                                event(
                                        test("uses"),
                                        finishedWithFailure(
                                                instanceOf(RdmaDeviceExtension.MissingRdmaDeviceException.class),
                                                message(m ->
                                                        m.contains("rdma.require is set") && m.contains("IWARP"))))));
    }

    private static void withProperties(Path descriptor, String require, Runnable body) {
        String oldDescriptor = System.getProperty("rdma.testbed.descriptor");
        String oldRequire = System.getProperty("rdma.require");
        System.setProperty("rdma.testbed.descriptor", descriptor.toString());
        System.setProperty("rdma.require", require);
        try {
            body.run();
        } finally {
            restore("rdma.testbed.descriptor", oldDescriptor);
            restore("rdma.require", oldRequire);
        }
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }
}
