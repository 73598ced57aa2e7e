package org.panamardma.testbed;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test (class or method) that needs a real RDMA device of the given transport. The test may declare a
 * parameter of type {@link RdmaTestDevice} to receive it.
 *
 * <p>Without such a device the test is skipped with a message saying how to run it in the soft-RoCE / soft-iWARP
 * VM; with {@code -Drdma.require=true} (or the environment variable {@code CI=true} when the property is unset) a
 * missing device fails the test instead. All such tests carry the JUnit tag {@value #TAG}.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Tag(RdmaDeviceTest.TAG)
@ExtendWith(RdmaDeviceExtension.class)
public @interface RdmaDeviceTest {
    /** The JUnit tag of every device test: the VM suite selects by it, host-only runs exclude by it. */
    String TAG = "rdma-device";

    /**
     * The kind of device the test needs.
     *
     * @return the kind of device the test needs: RoCE, iWARP or any
     */
    Transport transport() default Transport.ANY;
}
