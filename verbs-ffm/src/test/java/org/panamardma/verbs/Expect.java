package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.function.Executable;

/**
 * What the testbed's stack can do with FLUSH and ATOMIC WRITE, for the device tests that must pass on every testbed
 * image (Debian 13: rdma-core 56, Linux 6.12; Debian 12: rdma-core 44, Linux 6.1) with nothing skipped. Two facts
 * decide, neither of them by the device code under test:
 *
 * <ul>
 *   <li>the rdma-core release of the loaded libibverbs, {@link RdmaCore#version()} (what the file name says;
 *   checked against dpkg by {@code RdmaCoreDeviceTest}; lowered by {@code -Dpanama.rdma.assumeRdmaCore=44}, which
 *   runs the suite as on 44): {@code ibv_wr_flush} from 45, {@code ibv_wr_atomic_write} from 44;</li>
 *   <li>the kernel release: rxe reports and executes FLUSH (global and persistent) and ATOMIC WRITE from Linux 6.2
 *   (the "RDMA/rxe: Add RDMA FLUSH operation" and "RDMA/rxe: Add RDMA Atomic Write operation" series of Li Zhijian
 *   and Xiao Yang, merged for 6.2); siw has neither.</li>
 * </ul>
 */
public final class Expect {
    private Expect() {}

    /** Whether the installed rdma-core has {@code ibv_wr_flush} (45 or later). */
    public static boolean libraryFlush() {
        return release().atLeast(45);
    }

    /** Whether the installed rdma-core has {@code ibv_wr_atomic_write} (44 or later). */
    public static boolean libraryAtomicWrite() {
        return release().atLeast(44);
    }

    /** Whether this kernel's rxe offers FLUSH and ATOMIC WRITE (device_cap_flags_ex bits 38 to 40): Linux 6.2 on. */
    public static boolean rxeKernelFlushAndAtomicWrite() {
        String[] v = System.getProperty("os.version").split("[.-]");
        int major = Integer.parseInt(v[0]);
        int minor = v.length > 1 ? Integer.parseInt(v[1]) : 0;
        return major > 6 || (major == 6 && minor >= 2);
    }

    /** Whether a queue pair on rxe can FLUSH: the library and the kernel. */
    public static boolean rxeFlush() {
        return libraryFlush() && rxeKernelFlushAndAtomicWrite();
    }

    /** Whether a queue pair on rxe can ATOMIC WRITE. */
    public static boolean rxeAtomicWrite() {
        return libraryAtomicWrite() && rxeKernelFlushAndAtomicWrite();
    }

    /**
     * Asserts that {@code post} (a FLUSH on {@code deviceName}) is refused before anything is posted, with the
     * library's reason where the installed rdma-core lacks FLUSH (checked first), else the device's.
     */
    public static UnsupportedOperationException assertFlushRefused(String deviceName, Executable post) {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, post);
        if (!libraryFlush()) {
            assertEquals(libraryRefusal(RdmaCore.Feature.FLUSH), e.getMessage());
        } else {
            assertTrue(
                    e.getMessage().startsWith("RDMA FLUSH is not supported by " + deviceName + ": it lacks FLUSH"),
                    e.getMessage());
        }
        return e;
    }

    /** As {@link #assertFlushRefused}, for ATOMIC WRITE. */
    public static UnsupportedOperationException assertAtomicWriteRefused(String deviceName, Executable post) {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, post);
        if (!libraryAtomicWrite()) {
            assertEquals(libraryRefusal(RdmaCore.Feature.ATOMIC_WRITE), e.getMessage());
        } else {
            assertTrue(
                    e.getMessage()
                            .startsWith(
                                    "RDMA ATOMIC WRITE is not supported by " + deviceName + ": it lacks ATOMIC WRITE"),
                    e.getMessage());
        }
        return e;
    }

    /** The message of a feature the installed rdma-core lacks, as RdmaCore words it. */
    public static String libraryRefusal(RdmaCore.Feature feature) {
        RdmaCore.Version detected = RdmaCore.ibverbs().verdict().version();
        RdmaCore.Version v = release();
        String installed = v.equals(detected)
                ? "rdma-core " + v
                : "rdma-core " + detected + ", taken as " + v.major() + " ("
                        + (RdmaCore.assumedByTest()
                                ? "RdmaCore.assumeForTest"
                                : "-D" + RdmaCore.ASSUME_PROPERTY + "=" + v.major())
                        + ")";
        return feature.description() + " needs rdma-core " + feature.since() + " or later ("
                + (feature == RdmaCore.Feature.FLUSH ? "ibv_wr_flush" : "ibv_wr_atomic_write")
                + "); the installed libibverbs is " + installed;
    }

    private static RdmaCore.Version release() {
        try {
            return RdmaCore.version();
        } catch (RdmaLibraryException e) {
            throw new AssertionError("a device test without a usable libibverbs: " + e.getMessage(), e);
        }
    }
}
