package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.RdmaCoreDetection.FileVersion;
import org.panamardma.verbs.RdmaCoreDetection.Probe;
import org.panamardma.verbs.RdmaCoreDetection.Verdict;

/**
 * How the installed rdma-core release is told from the library's file name and symbol versions, and which releases
 * are refused. Pure: no library is loaded. The file names are those of Debian's packages (libibverbs1 44.0-2 of
 * Debian 12, 56.1-1 of Debian 13; librdmacm1 / librdmacm1t64), as rdma-core's build names them
 * ({@code <lib>.so.1.<ABI>.<PACKAGE_VERSION>}); the symbol versions those a release exports (libibverbs.map.in).
 */
class RdmaCoreDetectionTest {
    private static final RdmaCoreDetection.Spec IBVERBS = RdmaCoreDetection.IBVERBS;
    private static final RdmaCoreDetection.Spec RDMACM = RdmaCoreDetection.RDMACM;

    @Test
    void fileNamesOfRealPackagesTellAbiLevelAndRelease() {
        assertEquals(
                Optional.of(new FileVersion(14, 44, 0)),
                FileVersion.parse("libibverbs.so.", "libibverbs.so.1.14.44.0"));
        assertEquals(
                Optional.of(new FileVersion(14, 56, 1)),
                FileVersion.parse("libibverbs.so.", "libibverbs.so.1.14.56.1"));
        assertEquals(
                Optional.of(new FileVersion(3, 44, 0)), FileVersion.parse("librdmacm.so.", "librdmacm.so.1.3.44.0"));
        assertEquals(
                Optional.of(new FileVersion(3, 56, 1)), FileVersion.parse("librdmacm.so.", "librdmacm.so.1.3.56.1"));
        // an unofficial release with a distributor tag (Documentation/versioning.md: '11.vendor2')
        assertEquals(
                Optional.of(new FileVersion(14, 44, 0)),
                FileVersion.parse("libibverbs.so.", "libibverbs.so.1.14.44.vendor2"));
    }

    @Test
    void namesThatDoNotTellAReleaseGiveNone() {
        for (String name : new String[] {
            "libibverbs.so.1",
            "libibverbs.so",
            "libibverbs.so.1.14",
            "libibverbs.so.1.14.2410mlnx54",
            "librdmacm.so.1.3.44.0",
            "libibverbs.so.2.14.44.0"
        }) {
            assertEquals(Optional.empty(), FileVersion.parse("libibverbs.so.", name), name);
        }
        assertEquals(Optional.empty(), FileVersion.parse("libibverbs.so.", null));
    }

    @Test
    void debian12sLibibverbsIsRdmaCore44Exactly() {
        Verdict v = reconcile(IBVERBS, "libibverbs.so.1.14.44.0", 44);
        assertEquals(new RdmaCore.Version(44, 0, true), v.version());
        assertEquals(Optional.empty(), v.warning());
        assertEquals(Optional.empty(), v.refusal());
    }

    @Test
    void debian13sLibrariesAre56Point1() {
        assertEquals(
                new RdmaCore.Version(56, 1, true),
                reconcile(IBVERBS, "libibverbs.so.1.14.56.1", 56).version());
        Verdict cm = reconcile(RDMACM, "librdmacm.so.1.3.56.1", 56);
        assertEquals(new RdmaCore.Version(56, 1, true), cm.version());
        assertEquals(Optional.empty(), cm.refusal());
    }

    @Test
    void aReleaseOlderThan44IsRefusedNamingBoth() {
        // Ubuntu 22.04's rdma-core 39
        Verdict v = reconcile(IBVERBS, "libibverbs.so.1.14.39.0", 39);
        assertEquals(new RdmaCore.Version(39, 0, true), v.version());
        assertEquals(
                Optional.of("libibverbs is rdma-core 39.0, older than 44, the oldest release supported "
                        + "(Debian 12's): install rdma-core 44 or later"),
                v.refusal());
    }

    @Test
    void withoutAReleaseInTheNameTheSymbolVersionsGiveALowerBound() {
        // a 44 copied as plain libibverbs.so.1: its nodes prove 37 (__verbs_log), not 44
        Verdict v = reconcile(IBVERBS, "libibverbs.so.1", 44);
        assertEquals(new RdmaCore.Version(37, 0, false), v.version());
        assertEquals(Optional.empty(), v.refusal(), "it has IBVERBS_1.14: used, with later features refused");
        assertEquals(
                Optional.of("libibverbs's file name libibverbs.so.1 does not tell its rdma-core release "
                        + "(rdma-core names it libibverbs.so.1.<ABI>.<release>); its symbol versions (IBVERBS_1.14, "
                        + "IBVERBS_PRIVATE_34) prove rdma-core 37 or later: features of later releases are refused"),
                v.warning());
        assertFalse(v.version().atLeast(44));
        // a 56 so copied proves 53 (ibv_cmd_create_cq_ex2): FLUSH (45) is there
        Verdict v56 = reconcile(IBVERBS, null, 56);
        assertEquals(new RdmaCore.Version(53, 0, false), v56.version());
        assertTrue(v56.version().atLeast(RdmaCore.Feature.FLUSH.since()));
        assertTrue(v56.warning().orElseThrow().startsWith("libibverbs's file was not found in /proc/self/maps;"));
    }

    @Test
    void withoutAReleaseInTheNameAndWithoutIbverbs1Point14ItIsRefused() {
        Verdict v = reconcile(IBVERBS, "libibverbs.so.1", 35);
        assertEquals(
                Optional.of("libibverbs (libibverbs.so.1) has no symbol version IBVERBS_1.14, which every "
                        + "rdma-core since 36 has: it is older than rdma-core 44, the oldest release supported (Debian 12's), "
                        + "or no rdma-core at all: install rdma-core 44 or later"),
                v.refusal());
    }

    @Test
    void aFileNameTheSymbolVersionsContradictIsNotBelieved() {
        // named 60, but with the private node of 34..56: taken as what the nodes prove
        Verdict v = RdmaCoreDetection.reconcile(
                IBVERBS, "libibverbs.so.1.14.60.0", Optional.of(RdmaCoreDetection.expectedProbes(IBVERBS, 56)), 44);
        assertEquals(new RdmaCore.Version(53, 0, false), v.version());
        assertEquals(Optional.empty(), v.refusal());
        assertEquals(
                Optional.of("libibverbs's file libibverbs.so.1.14.60.0 names rdma-core 60.0, but its symbol "
                        + "versions (IBVERBS_1.14, IBVERBS_PRIVATE_34) belong to rdma-core 53 to 56: taken as rdma-core 53 "
                        + "(the lower bound of its symbol versions), features of later releases refused"),
                v.warning());
        // named 45, with no IBVERBS_1.14 at all: a 45 has it, so the name lies, and the nodes prove too little
        Verdict liar = RdmaCoreDetection.reconcile(
                IBVERBS,
                "libibverbs.so.1.14.45.0",
                Optional.of(Set.of(probe("ibv_cmd_alloc_pd", "IBVERBS_PRIVATE_34"))),
                44);
        assertEquals(new RdmaCore.Version(34, 0, false), liar.version());
        assertTrue(
                liar.warning()
                        .orElseThrow()
                        .contains("it lacks symbol version IBVERBS_1.14 "
                                + "(ibv_query_qp_data_in_order), which rdma-core 36 and later have"),
                liar.warning().orElseThrow());
        assertTrue(liar.refusal().isPresent());
        // named 44 but proving 49 (ibv_wr_opcode_str): the lower bound wins, which is safe both ways here
        Verdict under = RdmaCoreDetection.reconcile(
                IBVERBS, "libibverbs.so.1.14.44.0", Optional.of(RdmaCoreDetection.expectedProbes(IBVERBS, 50)), 44);
        assertEquals(new RdmaCore.Version(49, 0, false), under.version());
    }

    @Test
    void aVendorBuildWithItsOwnProviderAbiKeepsItsName() {
        // public nodes of 60 (IBVERBS_1.14, 1.15), a private node no upstream release has: the name is believed
        Set<Probe> found = new LinkedHashSet<>();
        found.add(probe("ibv_query_qp_data_in_order", "IBVERBS_1.14"));
        found.add(probe("ibv_reg_mr_ex", "IBVERBS_1.15"));
        Verdict v = RdmaCoreDetection.reconcile(IBVERBS, "libibverbs.so.1.15.60.0", Optional.of(found), 44);
        assertEquals(new RdmaCore.Version(60, 0, true), v.version());
        // but not if it lacks a public node its named release has
        Verdict missing = RdmaCoreDetection.reconcile(IBVERBS, "libibverbs.so.1.16.62.0", Optional.of(found), 44);
        assertEquals(new RdmaCore.Version(59, 0, false), missing.version());
    }

    @Test
    void withoutDlvsymTheFileNameDecides() {
        Verdict v = RdmaCoreDetection.reconcile(IBVERBS, "libibverbs.so.1.14.44.0", Optional.empty(), 44);
        assertEquals(new RdmaCore.Version(44, 0, true), v.version());
        Verdict none = RdmaCoreDetection.reconcile(IBVERBS, "libibverbs.so.1", Optional.empty(), 44);
        assertEquals(null, none.version());
        assertEquals(
                Optional.of("cannot tell which rdma-core release libibverbs is: its file name libibverbs.so.1 "
                        + "does not say, and its symbol versions cannot be read (no dlvsym)"),
                none.refusal());
    }

    @Test
    void librdmacmOfUnknownReleaseNeedsRdmacm1Point3() {
        assertEquals(
                new RdmaCore.Version(31, 0, false),
                reconcile(RDMACM, "librdmacm.so.1", 44).version());
        assertEquals(Optional.empty(), reconcile(RDMACM, "librdmacm.so.1", 44).refusal());
        assertTrue(RdmaCoreDetection.reconcile(RDMACM, "librdmacm.so.1", Optional.of(Set.of()), 44)
                .refusal()
                .orElseThrow()
                .contains("has no symbol version RDMACM_1.3"));
    }

    @Test
    void theProbesMatchWhatDebiansLibrariesExport() {
        // objdump -T of Debian's libibverbs.so.1.14.44.0 and .56.1: IBVERBS_1.14 and IBVERBS_PRIVATE_34, and the
        // private symbols __verbs_log (both), ibv_wr_opcode_str and ibv_cmd_create_cq_ex2 (56.1 only)
        assertEquals(
                "IBVERBS_1.14, IBVERBS_PRIVATE_34",
                RdmaCoreDetection.nodes(IBVERBS, RdmaCoreDetection.expectedProbes(IBVERBS, 44)));
        assertEquals(
                Set.of("ibv_query_qp_data_in_order", "ibv_cmd_alloc_pd", "__verbs_log"),
                symbols(RdmaCoreDetection.expectedProbes(IBVERBS, 44)));
        assertEquals(
                Set.of(
                        "ibv_query_qp_data_in_order",
                        "ibv_cmd_alloc_pd",
                        "__verbs_log",
                        "ibv_wr_opcode_str",
                        "ibv_cmd_create_cq_ex2"),
                symbols(RdmaCoreDetection.expectedProbes(IBVERBS, 56)));
    }

    private static Verdict reconcile(RdmaCoreDetection.Spec spec, String fileName, int release) {
        return RdmaCoreDetection.reconcile(
                spec,
                fileName,
                Optional.of(RdmaCoreDetection.expectedProbes(spec, release)),
                RdmaCore.OLDEST_SUPPORTED);
    }

    private static Probe probe(String symbol, String node) {
        return IBVERBS.probes().stream()
                .filter(p -> p.symbol().equals(symbol) && p.node().equals(node))
                .findFirst()
                .orElseThrow();
    }

    private static Set<String> symbols(Set<Probe> probes) {
        Set<String> out = new java.util.HashSet<>();
        probes.forEach(p -> out.add(p.symbol()));
        return out;
    }
}
