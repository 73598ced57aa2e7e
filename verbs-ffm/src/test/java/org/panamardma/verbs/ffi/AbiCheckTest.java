package org.panamardma.verbs.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The version rules of the ABI check, on the real bindings; needs nothing native. */
class AbiCheckTest {

    @Test
    void aStructThatGrewIsExpectedAtItsOlderSizeInAnOlderRdmaCore() {
        JavaBindings java = JavaBindings.scan();
        JavaBindings.Struct port = java.structs.get("ibv_port_attr");
        assertEquals(Grew.Owner.CALLER, port.grew().value());
        assertEquals(Map.of("size", 52L, "align", 4L), port.sizeIn(44, "6.1")); // C: 52 bytes in rdma-core 44
        assertEquals(Map.of("size", 56L, "align", 4L), port.sizeIn(56, "6.12"));
        JavaBindings.Struct qpx = java.structs.get("ibv_qp_ex");
        assertEquals(Grew.Owner.LIBRARY, qpx.grew().value());
        assertEquals(352L, qpx.sizeIn(44, "6.1").get("size"));
        assertEquals(360L, qpx.sizeIn(45, "6.1").get("size"));
        assertTrue(java.structs.get("ibv_send_wr").firstMissingIn(44, "6.1").isEmpty());
    }

    @Test
    void versionsAreComparedByRdmaCoreAndLinuxUapi() {
        JavaBindings java = JavaBindings.scan();
        assertEquals(new JavaBindings.Version(45, ""), java.since("field ibv_qp_ex wr_flush"));
        JavaBindings.Version atomicWrite = java.since("const IB_UVERBS_DEVICE_ATOMIC_WRITE");
        assertEquals(new JavaBindings.Version(44, "6.2"), atomicWrite);
        assertFalse(atomicWrite.in(44, "6.1"));
        assertTrue(atomicWrite.in(44, "6.12")); // 6.12 > 6.2: numerically, not as text
        assertTrue(JavaBindings.Version.ALWAYS.in(44, ""));
        assertEquals(" since 44 linux 6.2", atomicWrite.suffix());
    }

    @Test
    void aCheckThatComparedNothingFails() {
        var set = new AbiCheck.HeaderSet("none", "nothing", 44, "6.1", List.of(), false, List.of());
        var empty = new AbiCheck.Report(List.of(), List.of(), Map.of(), "compared nothing", "cc");
        assertThrows(AssertionError.class, () -> AbiCheck.assertClean(set, empty));
        var noFunctionTypes = new AbiCheck.Report(
                List.of(),
                List.of(),
                Map.of("struct", 1, "field", 1, "field types", 1, "const", 1, "func", 1, "function-pointer types", 1),
                "no prototypes",
                "cc");
        assertThrows(AssertionError.class, () -> AbiCheck.assertClean(set, noFunctionTypes));
    }
}
