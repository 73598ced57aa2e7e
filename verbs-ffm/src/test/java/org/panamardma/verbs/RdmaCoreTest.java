package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.ibv_port_attr;
import org.panamardma.verbs.ffi.ibv_qp_ex;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * RdmaCore on this host: the library it loaded (if any), the features and struct views it allows, and the refusal of
 * a missing library. Meaningful with and without libibverbs installed: what depends on it asserts both cases (CI's
 * host has rdma-core 44's libibverbs1 and librdmacm1, installed by .ci/run). The refusal of releases the host does
 * not have is shown by {@link RdmaCore#assumeForTest}, which can only lower the release.
 */
class RdmaCoreTest {
    private static final String DEBIAN_PACKAGES = "on Debian and Ubuntu the packages libibverbs1 and ibverbs-providers";

    @AfterEach
    void restore() {
        RdmaCore.assumeForTest(null);
    }

    @Test
    void anInstalledLibibverbsIsFoundWithItsFileAndRelease() throws Exception {
        if (!Native.IBVERBS.isLoaded()) {
            RdmaLibraryException e = assertThrows(RdmaLibraryException.class, RdmaCore::version);
            assertTrue(e.getMessage().contains(DEBIAN_PACKAGES), e.getMessage());
            return;
        }
        RdmaCore.Version v = RdmaCore.version();
        Path file = RdmaCore.ibverbsFile().orElseThrow(() -> new AssertionError("no file for " + RdmaCore.describe()));
        // the file the dynamic linker resolved libibverbs.so.1 to, and the release its name says
        Path real = Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        if (Files.exists(real)) {
            assertEquals(real.toRealPath(), file, RdmaCore.describe());
        }
        String name = file.getFileName().toString();
        assertTrue(name.startsWith("libibverbs.so.1.14." + v.major() + "."), name + " vs " + v);
        assertTrue(v.exact(), RdmaCore.describe());
        assertTrue(v.atLeast(RdmaCore.OLDEST_SUPPORTED), RdmaCore.describe());
        assertTrue(RdmaCore.describe().contains("IBVERBS_1.14"), RdmaCore.describe());
        RdmaCore.checkIbverbs();
        // what the release says about FLUSH is what the feature says
        assertEquals(v.atLeast(45), RdmaCore.Feature.FLUSH.isAvailable());
        assertEquals(v.atLeast(45) ? 360 : 352, RdmaCore.qpExSize());
        assertEquals(v.atLeast(49) ? 56 : 52, RdmaCore.portAttrSize());
    }

    @Test
    void flushIsRefusedOn44NamingFeatureReleasesAndCall() {
        RdmaCore.assumeForTest(44);
        assertFalse(RdmaCore.Feature.FLUSH.isAvailable());
        UnsupportedOperationException e =
                assertThrows(UnsupportedOperationException.class, RdmaCore.Feature.FLUSH::require);
        String prefix = "RDMA FLUSH needs rdma-core 45 or later (ibv_wr_flush); the installed libibverbs is ";
        assertTrue(e.getMessage().startsWith(prefix), e.getMessage());
        String installed = e.getMessage().substring(prefix.length());
        if (!Native.IBVERBS.isLoaded()) {
            assertTrue(installed.startsWith("not loadable ("), installed);
        } else if (RdmaCore.ibverbs().verdict().version().equals(new RdmaCore.Version(44, 0, true))) {
            assertEquals("rdma-core 44.0", installed);
        } else {
            assertEquals(
                    "rdma-core " + RdmaCore.ibverbs().verdict().version() + ", taken as 44 "
                            + "(RdmaCore.assumeForTest)",
                    installed);
        }
    }

    @Test
    void atomicWriteIsThereFrom44AndRefusedBelow() {
        if (!Native.IBVERBS.isLoaded()) {
            assertFalse(RdmaCore.Feature.ATOMIC_WRITE.isAvailable());
            return;
        }
        RdmaCore.assumeForTest(44);
        RdmaCore.Feature.ATOMIC_WRITE.require();
        RdmaCore.assumeForTest(43);
        UnsupportedOperationException e =
                assertThrows(UnsupportedOperationException.class, RdmaCore.Feature.ATOMIC_WRITE::require);
        assertTrue(
                e.getMessage()
                        .startsWith("RDMA ATOMIC WRITE needs rdma-core 44 or later (ibv_wr_atomic_write); "
                                + "the installed libibverbs is rdma-core "),
                e.getMessage());
    }

    @Test
    void aReleaseOlderThan44IsRefusedAtTheFirstEntries() throws Exception {
        RdmaCore.assumeForTest(43);
        RdmaLibraryException e = assertThrows(RdmaLibraryException.class, Device::list);
        if (Native.IBVERBS.isLoaded()) {
            assertTrue(e.getMessage().startsWith("libibverbs is rdma-core "), e.getMessage());
            assertTrue(
                    e.getMessage().endsWith(", older than 44, the oldest release supported (Debian 12's)"),
                    e.getMessage());
            assertThrows(RdmaLibraryException.class, () -> Context.open("rxe0"));
        } else {
            assertTrue(e.getMessage().contains(DEBIAN_PACKAGES), e.getMessage());
        }
        RdmaCore.assumeForTest(null);
        if (Native.IBVERBS.isLoaded()) {
            Device.list(); // no devices on a host without providers; what matters is that it is not refused
        }
    }

    @Test
    void theAssumedReleaseCanOnlyBeLower() throws Exception {
        if (!Native.IBVERBS.isLoaded()) {
            return; // nothing installed to claim more than: version() throws, shown above
        }
        RdmaCore.Version detected = RdmaCore.version();
        RdmaCore.assumeForTest(detected.major() + 1);
        assertEquals(detected, RdmaCore.version(), "claiming a newer release than installed is ignored");
        assertEquals(detected.atLeast(45), RdmaCore.Feature.FLUSH.isAvailable());
        RdmaCore.assumeForTest(44);
        assertEquals(new RdmaCore.Version(44, 0, true), RdmaCore.version());
    }

    @Test
    void on44TheQueuePairsViewEndsBeforeWrFlushAndItsSlotIsNeverRead() {
        RdmaCore.assumeForTest(44);
        assertEquals(352, ibv_qp_ex.wr_flush$OFFSET, "rdma-core 44's sizeof(struct ibv_qp_ex)");
        try (Arena arena = Arena.ofConfined()) {
            // a provider's ibv_qp_ex with every slot filled, and a canary where 56 has wr_flush
            MemorySegment provider = arena.allocate(ibv_qp_ex.layout());
            for (long o = ibv_qp_ex.wr_id$OFFSET; o < provider.byteSize(); o += 8) {
                provider.set(JAVA_LONG, o, 0x1000 + o);
            }
            MemorySegment view = RdmaCore.qpExView(MemorySegment.ofAddress(provider.address()));
            long granted = verbs_h.IBV_QP_EX_WITH_FLUSH | verbs_h.IBV_QP_EX_WITH_ATOMIC_WRITE;
            if (Native.IBVERBS.isLoaded()) {
                assertEquals(352, view.byteSize());
                assertEquals(
                        0x1000 + ibv_qp_ex.wr_atomic_write$OFFSET,
                        ExtendedSendPath.sendOpSlot(
                                        view,
                                        granted,
                                        verbs_h.IBV_QP_EX_WITH_ATOMIC_WRITE,
                                        RdmaCore.Feature.ATOMIC_WRITE,
                                        ibv_qp_ex.wr_atomic_write$OFFSET)
                                .address());
            } else {
                assertEquals(344, view.byteSize(), "no release known: not even wr_atomic_write");
            }
            assertEquals(
                    0,
                    ExtendedSendPath.sendOpSlot(
                                    view,
                                    granted,
                                    verbs_h.IBV_QP_EX_WITH_FLUSH,
                                    RdmaCore.Feature.FLUSH,
                                    ibv_qp_ex.wr_flush$OFFSET)
                            .address(),
                    "granted, but 44 has no wr_flush");
            assertThrows(
                    IndexOutOfBoundsException.class,
                    () -> view.get(ADDRESS, ibv_qp_ex.wr_flush$OFFSET),
                    "the view cannot be read past 44's struct");
            if (Native.IBVERBS.isLoaded()
                    && RdmaCore.ibverbs().verdict().version().atLeast(45)) {
                RdmaCore.assumeForTest(null);
                MemorySegment full = RdmaCore.qpExView(MemorySegment.ofAddress(provider.address()));
                assertEquals(
                        0x1000 + ibv_qp_ex.wr_flush$OFFSET,
                        ExtendedSendPath.sendOpSlot(
                                        full,
                                        granted,
                                        verbs_h.IBV_QP_EX_WITH_FLUSH,
                                        RdmaCore.Feature.FLUSH,
                                        ibv_qp_ex.wr_flush$OFFSET)
                                .address());
                assertEquals(
                        0,
                        ExtendedSendPath.sendOpSlot(
                                        full,
                                        verbs_h.IBV_QP_EX_WITH_ATOMIC_WRITE,
                                        verbs_h.IBV_QP_EX_WITH_FLUSH,
                                        RdmaCore.Feature.FLUSH,
                                        ibv_qp_ex.wr_flush$OFFSET)
                                .address(),
                        "not granted by the provider: not read");
            }
        }
    }

    @Test
    void portAttributesAreReadOnlyAsFarAsTheInstalledReleaseFillsThem() {
        RdmaCore.assumeForTest(48);
        assertEquals(52, RdmaCore.portAttrSize(), "active_speed_ex came in 49");
        assertEquals(52, ibv_port_attr.active_speed_ex$OFFSET);
        assertTrue(ibv_port_attr.link_layer$OFFSET < 52, "what queryPort reads is inside");
    }

    @Test
    void aMissingLibraryIsRefusedNamingThePackageToInstall() {
        // the same path as libibverbs.so.1, with a name no system has
        Native.Library missing = new Native.Library("libpanama-rdma-missing.so.1");
        assertFalse(missing.isLoaded());
        RdmaCoreDetection.Detected d = RdmaCoreDetection.detect(RdmaCoreDetection.IBVERBS, missing);
        RdmaLibraryException e = assertThrows(RdmaLibraryException.class, () -> RdmaCore.check(d));
        assertEquals(
                "libpanama-rdma-missing.so.1 cannot be loaded (Cannot open library: "
                        + "libpanama-rdma-missing.so.1): install rdma-core's verbs library and its device providers: "
                        + "on Debian and Ubuntu the packages libibverbs1 and ibverbs-providers (apt-get install libibverbs1 "
                        + "ibverbs-providers), on RHEL, Fedora and SUSE libibverbs (dnf install libibverbs)",
                e.getMessage());
        RdmaCoreDetection.Detected cm =
                RdmaCoreDetection.detect(RdmaCoreDetection.RDMACM, new Native.Library("libpanama-rdmacm-missing.so.1"));
        assertTrue(
                cm.refusal()
                        .orElseThrow()
                        .endsWith("install rdma-core's connection manager library: on Debian "
                                + "and Ubuntu the package librdmacm1 (apt-get install librdmacm1), on RHEL, Fedora and SUSE "
                                + "librdmacm (dnf install librdmacm)"),
                cm.refusal().orElseThrow());
    }

    @Test
    void theFirstEntriesRefuseOrPassAsTheInstalledLibrariesSay() throws Exception {
        if (!Native.IBVERBS.isLoaded()) {
            for (int i = 0; i < 2; i++) { // again: no NoClassDefFoundError the second time
                RdmaLibraryException e = assertThrows(RdmaLibraryException.class, Device::list);
                assertTrue(e.getMessage().startsWith("libibverbs.so.1 cannot be loaded ("), e.getMessage());
                assertTrue(e.getMessage().contains(DEBIAN_PACKAGES), e.getMessage());
                assertThrows(RdmaLibraryException.class, () -> Context.open("rxe0"));
            }
        } else {
            RdmaCore.checkIbverbs();
            assertEquals(Optional.empty(), RdmaCore.ibverbs().refusal());
        }
        if (!Native.RDMACM.isLoaded()) {
            RdmaLibraryException e = assertThrows(RdmaLibraryException.class, EventChannel::create);
            assertTrue(e.getMessage().contains("librdmacm1"), e.getMessage());
        } else if (Native.IBVERBS.isLoaded()) {
            RdmaCore.checkRdmacm();
            assertTrue(RdmaCore.rdmacmVersion().atLeast(RdmaCore.OLDEST_SUPPORTED), RdmaCore.describe());
            assertTrue(
                    RdmaCore.rdmacmFile().orElseThrow().getFileName().toString().startsWith("librdmacm.so.1.3."));
        }
    }

    /**
     * A -Dpanama.rdma.assumeRdmaCore that is not a release number is ignored with a WARN, logged through SLF4J (bound
     * to java.util.logging in the tests) under RdmaCore's name, naming the property and the value.
     */
    @Test
    void anAssumedReleaseThatIsNotANumberIsIgnoredWithAWarning() {
        Logger jul = Logger.getLogger(RdmaCore.class.getName());
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        jul.addHandler(capture);
        try {
            assertEquals(null, RdmaCore.parseAssumed("forty-four"));
            assertEquals(null, RdmaCore.parseAssumed("0"));
            assertEquals(44, RdmaCore.parseAssumed(" 44 "));
            assertEquals(null, RdmaCore.parseAssumed(null));
        } finally {
            jul.removeHandler(capture);
        }
        assertEquals(2, records.size(), "one warning per value that is not a release");
        assertEquals(Level.WARNING, records.get(0).getLevel());
        assertEquals(
                "-Dpanama.rdma.assumeRdmaCore=forty-four ignored: not an rdma-core release number such as 44",
                records.get(0).getMessage());
    }
}
