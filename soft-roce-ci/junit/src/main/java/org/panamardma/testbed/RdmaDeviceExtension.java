package org.panamardma.testbed;

import java.util.Optional;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The extension behind {@link RdmaDeviceTest}: skips or fails a test whose device is missing, and resolves
 * {@link RdmaTestDevice} and {@link PmemDevice} parameters.
 */
public final class RdmaDeviceExtension implements ExecutionCondition, BeforeEachCallback, ParameterResolver {

    /** JUnit creates it, through {@link RdmaDeviceTest}'s {@code @ExtendWith}. */
    public RdmaDeviceExtension() {}

    /** How to get a device in the VM; part of every skip and failure message. */
    static final String HOW_TO_RUN = "Run the device tests in the soft-RoCE/soft-iWARP VM with ./run-tests.sh "
            + "(or ./mvnw verify -Ptestbed), or one command with soft-roce-ci/bin/testbed run -- <command>.";

    /**
     * The provider {@link ProviderChoice#choose()} picked for this JVM, chosen and printed once: it does not change
     * while the JVM runs, and every skipped device test would otherwise scan the devices and the kernel's module
     * list again for its message. A choice that fails (a bad override) is not kept, so each test reports it.
     */
    private static ProviderChoice choice; // guarded by the class

    private static synchronized ProviderChoice choice() {
        if (choice == null) {
            choice = ProviderChoice.choose();
            System.err.println("[testbed] " + choice);
        }
        return choice;
    }

    /** How to get a device on this machine, by the provider chosen for it (host, privileged container, VM). */
    static String howToRun() {
        ProviderChoice choice = choice();
        return switch (choice.provider()) {
            case CONTAINER ->
                choice + ": ./mvnw verify -Ptestbed runs the device tests in the privileged container "
                        + "(soft-roce-ci/container/run.sh -- <command> runs one command there).";
            case HOST, VM -> choice + ". " + HOW_TO_RUN;
        };
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Transport wanted = wanted(context);
        TestbedDevices devices = TestbedDevices.discover();
        Optional<RdmaTestDevice> device = devices.find(wanted);
        if (device.isPresent()) {
            return ConditionEvaluationResult.enabled("RDMA device " + device.get());
        }
        if (required()) {
            // enabled, so that beforeEach can fail it: a missing device must not look like a pass
            return ConditionEvaluationResult.enabled("no " + wanted + " device, and rdma.require is set");
        }
        return ConditionEvaluationResult.disabled("needs an ACTIVE RDMA device of transport " + wanted + "; found "
                + devices.describe() + ". " + howToRun());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        Transport wanted = wanted(context);
        TestbedDevices devices = TestbedDevices.discover();
        Optional<RdmaTestDevice> device = devices.find(wanted);
        if (device.isPresent()) {
            // shows in the JUnit tree and XML report which device the test really ran on
            context.publishReportEntry("rdma.device", device.get().toString());
        } else {
            throw new MissingRdmaDeviceException("rdma.require is set and this test needs an ACTIVE RDMA device of "
                    + "transport " + wanted + "; found " + devices.describe() + ". " + howToRun());
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == RdmaTestDevice.class || type == PmemDevice.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext context) {
        TestbedDevices devices = TestbedDevices.discover();
        if (parameterContext.getParameter().getType() == PmemDevice.class) {
            return devices.pmem()
                    .orElseThrow(() -> new ParameterResolutionException(
                            "this test needs persistent memory (a device-DAX /dev/daxN.M); the testbed VM provides one "
                                    + "on an emulated NVDIMM. " + howToRun()));
        }
        Transport wanted = wanted(context);
        return devices.find(wanted)
                .orElseThrow(() -> new ParameterResolutionException("no ACTIVE RDMA device of transport " + wanted
                        + "; found " + devices.describe() + ". " + howToRun()));
    }

    /** The nearest annotation wins: method over class (and over enclosing classes). */
    private static Transport wanted(ExtensionContext context) {
        for (Optional<ExtensionContext> c = Optional.of(context);
                c.isPresent();
                c = c.get().getParent()) {
            Optional<RdmaDeviceTest> a =
                    c.get().getElement().flatMap(e -> AnnotationSupport.findAnnotation(e, RdmaDeviceTest.class));
            if (a.isPresent()) {
                return a.get().transport();
            }
        }
        return Transport.ANY;
    }

    /**
     * {@code -Drdma.require=true} makes a missing device a failure; when the property is unset or empty, the CI
     * environment variable decides, so a CI job can never pass by skipping device tests.
     */
    static boolean required() {
        String p = System.getProperty("rdma.require", "").trim();
        if (!p.isEmpty()) {
            return Boolean.parseBoolean(p);
        }
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /** Thrown when a device test has no device and must not be skipped. */
    public static final class MissingRdmaDeviceException extends RuntimeException {
        MissingRdmaDeviceException(String message) {
            super(message);
        }
    }
}
