package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/**
 * RdmaCore in the testbed: the release it finds is the one dpkg installed, and on a release without FLUSH a queue
 * pair on rxe is still created on the extended path, reads the provider's ibv_qp_ex only as far as that release's
 * struct goes, refuses FLUSH with the library's reason before any native call, and does what that release can.
 * The testbed images have rdma-core 56 (Debian 13) and 44 (Debian 12); the release below 45 is also taken here
 * through {@link RdmaCore#assumeForTest}, which only lowers it.
 */
class RdmaCoreDeviceTest {

    @AfterEach
    void restore() {
        RdmaCore.assumeForTest(null);
    }

    @Test
    @RdmaDeviceTest(transport = Transport.ANY)
    void theReleaseFoundIsTheOneDpkgInstalled(RdmaTestDevice device) throws Exception {
        RdmaCore.Version ibverbs = RdmaCore.ibverbs().verdict().version();
        assertTrue(ibverbs.exact(), RdmaCore.describe());
        assertEquals(
                upstreamVersion(RdmaCore.ibverbsFile().orElseThrow()),
                ibverbs.major() + "." + ibverbs.minor(),
                RdmaCore.describe());
        RdmaCore.Version rdmacm = RdmaCore.rdmacm().verdict().version();
        assertEquals(
                upstreamVersion(RdmaCore.rdmacmFile().orElseThrow()),
                rdmacm.major() + "." + rdmacm.minor(),
                RdmaCore.describe());
        assertTrue(
                RdmaCore.describe().contains("IBVERBS_1.14")
                        && RdmaCore.describe().contains("RDMACM_1.3"),
                RdmaCore.describe());
        System.out.println("rdma-core in the testbed: " + RdmaCore.describe());
    }

    @Test
    @RdmaDeviceTest(transport = Transport.ROCE)
    void onRdmaCore44AQueuePairIsExtendedReadsNoWrFlushAndRefusesFlushFirst(RdmaTestDevice device)
            throws RdmaException {
        RdmaCore.assumeForTest(44);
        try (RcPair pair = RcPair.open(device)) {
            QueuePair qp = pair.a;
            assertTrue(qp.usesExtendedSendPath(), "created with 44's send operations: rxe accepts them");
            assertEquals(352, qp.extendedQpViewSize(), "rdma-core 44's sizeof(struct ibv_qp_ex)");
            assertFalse(qp.supportsFlush());
            MemoryRegion remote = pair.pdB.allocate(4096, TestAccess.ALL_REMOTE);
            MemoryRegion local = pair.pdA.allocate(4096, TestAccess.ALL_REMOTE);
            Expect.assertFlushRefused(
                    device.name(),
                    () -> qp.postFlush(
                            1,
                            remote.address(),
                            remote.rkey(),
                            64,
                            FlushType.GLOBAL_VISIBILITY,
                            FlushScope.RANGE,
                            SendFlags.SIGNALED));
            assertEquals(0, pair.cqA.poll(pair.wc), "nothing was posted");
            // what 44 has works: RDMA WRITE, and ATOMIC WRITE (wr_atomic_write, inside 44's struct) where the kernel
            // has it
            local.segment().set(ValueLayout.JAVA_LONG, 0, 0x0123_4567_89AB_CDEFL);
            qp.postWrite(2, local, 0, 8, remote.address() + 8, remote.rkey(), SendFlags.SIGNALED);
            pair.expectSuccess(pair.cqA, 2, WcOpcode.RDMA_WRITE);
            assertEquals(0x0123_4567_89AB_CDEFL, remote.segment().get(ValueLayout.JAVA_LONG, 8));
            assertEquals(Expect.rxeKernelFlushAndAtomicWrite(), qp.supportsAtomicWrite());
            if (qp.supportsAtomicWrite()) {
                qp.postAtomicWrite(3, remote.address() + 16, remote.rkey(), 0x1122334455667788L, SendFlags.SIGNALED);
                pair.expectSuccess(pair.cqA, 3, WcOpcode.ATOMIC_WRITE);
                assertEquals(0x1122334455667788L, remote.segment().get(ValueLayout.JAVA_LONG, 16));
            }
        }
    }

    @Test
    @RdmaDeviceTest(transport = Transport.ROCE)
    void withoutAssumptionTheViewIsTheInstalledStruct(RdmaTestDevice device) throws RdmaException {
        try (RcPair pair = RcPair.open(device)) {
            assertEquals(Expect.libraryFlush() ? 360 : 352, pair.a.extendedQpViewSize());
            assertEquals(Expect.rxeFlush(), pair.a.supportsFlush());
        }
    }

    /** "56.1" of the package that installed {@code file} ("56.1-1"; epoch and Debian revision dropped). */
    private static String upstreamVersion(Path file) throws IOException, InterruptedException {
        String owner = run(List.of("dpkg", "-S", file.toString()));
        String pkg = owner.substring(0, owner.indexOf(": "));
        String version = run(List.of("dpkg-query", "-W", "-f", "${Version}", pkg));
        return version.replaceFirst("^\\d+:", "").replaceFirst("-[^-]*$", "");
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), command + ": " + out);
        assertEquals(0, p.exitValue(), command + ": " + out);
        return out;
    }
}
