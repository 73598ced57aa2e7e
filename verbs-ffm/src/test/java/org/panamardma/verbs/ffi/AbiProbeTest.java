package org.panamardma.verbs.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe machinery itself, on stand-in headers (no rdma-core needed, only gcc): values are printed and parsed,
 * and what C rejects (a bit-field, a missing member or constant, a function declared but not exported, a static
 * inline one) is attributed to its symbols-list line instead of failing the whole probe.
 */
class AbiProbeTest {

    @Test
    void probesStandInHeadersAndAttributesWhatTheCompilerRejects(@TempDir Path dir)
            throws IOException, InterruptedException {
        try {
            Assumptions.assumeTrue(AbiProbe.exec(List.of("gcc", "--version"), dir, 60).rc() == 0, "needs gcc");
        } catch (IOException e) {
            Assumptions.abort("needs gcc: " + e.getMessage());
        }
        Path fake = dir.resolve("fake");
        Files.createDirectories(fake.resolve("infiniband"));
        Files.createDirectories(fake.resolve("rdma"));
        Files.writeString(fake.resolve("infiniband/verbs.h"), """
                #include <stdint.h>
                struct demo { uint64_t a; union { uint32_t imm; uint32_t rkey; }; struct { uint16_t x[3]; } n; unsigned bits : 3; };
                union demo_u { uint8_t raw[16]; struct { uint64_t hi, lo; } g; };
                enum demo_e { DEMO_BIG = 0x80000000u, DEMO_NEG = -2 };
                #define DEMO_MASK (1ULL << 40)
                int demo_declared_only(void);
                static inline int demo_inline(void) { return 0; }
                """);
        Files.writeString(fake.resolve("rdma/rdma_cma.h"), "#include <stdio.h>\n");
        List<String> keys = List.of("struct demo", "field demo a", "field demo imm", "field demo n.x",
                "field demo bits", "field demo nope", "union demo_u", "field demo_u g.lo", "const DEMO_BIG",
                "const DEMO_NEG", "const DEMO_MASK", "const DEMO_MISSING", "func demo_declared_only",
                "func demo_inline", "func printf");
        AbiProbe.Result r = AbiProbe.run(dir.resolve("work"), keys, "gcc", List.of("-I", fake.toString()), List.of());

        assertEquals(Map.of("size", "24", "align", "8"), r.values().get("struct demo"));
        assertEquals(Map.of("offset", "8", "size", "4"), r.values().get("field demo imm"));
        assertEquals(Map.of("offset", "12", "size", "6"), r.values().get("field demo n.x"));
        assertEquals(Map.of("offset", "8", "size", "8"), r.values().get("field demo_u g.lo"));
        assertEquals("2147483648", r.values().get("const DEMO_BIG").get("value"));
        assertEquals("-2", r.values().get("const DEMO_NEG").get("value"));
        assertEquals("1099511627776", r.values().get("const DEMO_MASK").get("value"));
        assertEquals("yes", r.values().get("func printf").get("exported"));
        assertEquals("no", r.values().get("func demo_inline").get("exported"));

        assertTrue(r.rejected().get("field demo bits").contains("BIT-FIELD"), r.rejected().toString());
        assertTrue(r.rejected().get("field demo nope").contains("not in the installed"), r.rejected().toString());
        assertTrue(r.rejected().get("const DEMO_MISSING").contains("not in the installed"), r.rejected().toString());
        assertTrue(r.rejected().get("func demo_declared_only").contains("undefined reference"),
                r.rejected().toString());
        assertEquals(4, r.rejected().size(), r.rejected().toString());
        assertTrue(AbiTest.unsignedInNarrowJavaType(2147483648L, Integer.MIN_VALUE, "int"));
    }
}
