package org.panamardma.rdmatool;

import org.panamardma.verbs.RdmaCore;
import org.panamardma.verbs.RdmaLibraryException;

/**
 * What the testbed's rxe can do with FLUSH and ATOMIC WRITE, for the demo's assertions: the installed rdma-core
 * (ibv_wr_flush from 45, ibv_wr_atomic_write from 44) and the kernel (rxe executes both from Linux 6.2). verbs-ffm's
 * tests have the same facts in their {@code Expect}; that class lives in the verbs module's own package, which this
 * module's tests cannot share.
 */
final class ToolExpect {
    private ToolExpect() {}

    static boolean libraryFlush() {
        return release().atLeast(45);
    }

    static boolean rxeFlushAndAtomicWrite() {
        return libraryFlush() && release().atLeast(44) && kernelAtLeast(6, 2);
    }

    private static boolean kernelAtLeast(int wantMajor, int wantMinor) {
        String[] v = System.getProperty("os.version").split("[.-]");
        int major = Integer.parseInt(v[0]);
        int minor = v.length > 1 ? Integer.parseInt(v[1]) : 0;
        return major > wantMajor || (major == wantMajor && minor >= wantMinor);
    }

    private static RdmaCore.Version release() {
        try {
            return RdmaCore.version();
        } catch (RdmaLibraryException e) {
            throw new AssertionError("a device test without a usable libibverbs: " + e.getMessage(), e);
        }
    }
}
