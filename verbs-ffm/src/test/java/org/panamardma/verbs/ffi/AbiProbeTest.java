package org.panamardma.verbs.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
            Assumptions.assumeTrue(
                    AbiProbe.exec(List.of("gcc", "--version"), dir, 60).rc() == 0, "needs gcc");
        } catch (IOException e) {
            Assumptions.abort("needs gcc: " + e.getMessage());
        }
        Path fake = dir.resolve("fake");
        Files.createDirectories(fake.resolve("infiniband"));
        Files.createDirectories(fake.resolve("rdma"));
        Files.writeString(fake.resolve("infiniband/verbs.h"), """
                #include <stdint.h>
                struct demo { uint64_t a; union { uint32_t imm; uint32_t rkey; }; struct { uint16_t x[3]; } n; unsigned bits : 3;
                              int (*op)(struct demo *, uint8_t, double, void *); char name[4][2]; float f; };
                union demo_u { uint8_t raw[16]; struct { uint64_t hi, lo; } g; };
                enum demo_e { DEMO_BIG = 0x80000000u, DEMO_NEG = -2 };
                #define DEMO_MASK (1ULL << 40)
                int demo_declared_only(void);
                unsigned long demo_proto(const struct demo *, int8_t, void (*)(int), union demo_u);
                static inline int demo_inline(void) { return 0; }
                """);
        Files.writeString(fake.resolve("rdma/rdma_cma.h"), "#include <stdio.h>\n");
        List<String> keys = List.of(
                "struct demo",
                "field demo a",
                "field demo imm",
                "field demo n.x",
                "field demo bits",
                "field demo nope",
                "union demo_u",
                "field demo_u g.lo",
                "const DEMO_BIG",
                "const DEMO_NEG",
                "const DEMO_MASK",
                "const DEMO_MISSING",
                "func demo_declared_only",
                "func demo_inline",
                "func printf",
                "field demo op",
                "field demo name",
                "field demo f");
        AbiProbe.Result r = AbiProbe.run(
                dir.resolve("work"),
                keys,
                "gcc",
                new AbiProbe.Options(
                        true,
                        List.of("-I", fake.toString()),
                        List.of(),
                        Set.of("field demo n.x", "field demo name", "field demo a"),
                        List.of("field demo op", "field demo a")));

        assertEquals(Map.of("size", "48", "align", "8"), r.values().get("struct demo"));
        assertEquals(
                Map.of("offset", "8", "size", "4", "class", "1", "array", "0"),
                r.values().get("field demo imm"));
        assertEquals(
                Map.of(
                        "offset",
                        "12",
                        "size",
                        "6",
                        "class",
                        "5",
                        "array",
                        "1",
                        "elements",
                        "3",
                        "elem_size",
                        "2",
                        "elem_class",
                        "1",
                        "elem_array",
                        "0"),
                r.values().get("field demo n.x"));
        assertEquals(
                Map.of("offset", "8", "size", "8", "class", "1", "array", "0"),
                r.values().get("field demo_u g.lo"));
        assertEquals("5", r.values().get("field demo op").get("class"));
        assertEquals("8", r.values().get("field demo f").get("class"));
        assertEquals(
                Map.of(
                        "offset",
                        "32",
                        "size",
                        "8",
                        "class",
                        "5",
                        "array",
                        "1",
                        "elements",
                        "4",
                        "elem_size",
                        "2",
                        "elem_class",
                        "5",
                        "elem_array",
                        "1"),
                r.values().get("field demo name"));
        // the prototypes gcc -aux-info wrote, and the class (see probe.h) and size of each type in them
        AbiProbe.Prototype op = r.prototypes().get("field demo op");
        assertEquals("int", op.ret());
        assertEquals(List.of("struct demo *", "uint8_t", "double", "void *"), op.params());
        assertTrue(r.prototypes().get("func printf").variadic());

        // not linked (a header set whose libraries are not installed): declared only, prototypes still written
        AbiProbe.Result u = AbiProbe.run(
                dir.resolve("unlinked"),
                List.of("func demo_proto", "func demo_declared_only", "func demo_missing"),
                "gcc",
                new AbiProbe.Options(false, List.of("-I", fake.toString()), List.of(), Set.of(), List.of()));
        assertEquals("yes", u.values().get("func demo_declared_only").get("declared"));
        assertTrue(
                u.rejected().get("func demo_missing").contains("not in these"),
                u.rejected().toString());
        AbiProbe.Prototype proto = u.prototypes().get("func demo_proto");
        assertEquals("long unsigned int", proto.ret());
        assertEquals(4, proto.params().size(), proto.toString());
        assertEquals(new AbiProbe.CType("int8_t", 1, 1), u.types().get("int8_t"));
        assertEquals(new AbiProbe.CType("uint8_t", 1, 1), r.types().get("uint8_t"));
        assertEquals(new AbiProbe.CType("double", 8, 8), r.types().get("double"));
        assertEquals(new AbiProbe.CType("union demo_u", 13, 16), u.types().get("union demo_u"));
        assertEquals(5, u.types().get(proto.params().get(2)).cls());
        assertEquals(1, u.types().get(proto.params().get(1)).cls());
        assertEquals(8, u.types().get(proto.ret()).size());
        assertEquals("2147483648", r.values().get("const DEMO_BIG").get("value"));
        assertEquals("-2", r.values().get("const DEMO_NEG").get("value"));
        assertEquals("1099511627776", r.values().get("const DEMO_MASK").get("value"));
        assertEquals("yes", r.values().get("func printf").get("exported"));
        assertEquals("no", r.values().get("func demo_inline").get("exported"));

        assertTrue(
                r.rejected().get("field demo bits").contains("BIT-FIELD"),
                r.rejected().toString());
        assertTrue(
                r.rejected().get("field demo nope").contains("not in these"),
                r.rejected().toString());
        assertTrue(
                r.rejected().get("const DEMO_MISSING").contains("not in these"),
                r.rejected().toString());
        assertTrue(
                r.rejected().get("func demo_declared_only").contains("undefined reference"),
                r.rejected().toString());
        // a member Java binds as an array that C's is not, a "function pointer" that is not one
        assertTrue(
                r.rejected().containsKey("field demo a|elements"), r.rejected().toString());
        assertTrue(r.rejected().containsKey("field demo a|fnptr"), r.rejected().toString());
        assertEquals(6, r.rejected().size(), r.rejected().toString());
        assertTrue(AbiTest.unsignedInNarrowJavaType(2147483648L, Integer.MIN_VALUE, "int"));
    }
}
