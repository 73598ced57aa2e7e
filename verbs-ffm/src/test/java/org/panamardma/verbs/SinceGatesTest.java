package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.ffi.Since;
import org.panamardma.verbs.ffi.ibv_port_attr;
import org.panamardma.verbs.ffi.ibv_qp_ex;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * Every bound item newer than rdma-core {@value RdmaCore#OLDEST_SUPPORTED} and how the library keeps from touching it
 * on an older release. The list is what the ABI check against rdma-core 44's headers rejects (16 items); each entry
 * says the release that brought it and why using it on 44 is safe. When ffi members carry {@link Since} (the
 * multi-version ABI check), each one newer than 44 must be here with the same release: a new binding of a newer item
 * fails this test until its gate is decided.
 */
class SinceGatesTest {

    record Gate(int since, String how) {}

    static final Map<String, Gate> GATES = new TreeMap<>(Map.ofEntries(
            // struct members past the end of 44's struct: read only through views of the installed size
            Map.entry("ibv_qp_ex.wr_flush$OFFSET", new Gate(45, "RdmaCore.qpExSize + Feature.FLUSH (QueuePair)")),
            Map.entry(
                    "ibv_port_attr.active_speed_ex$OFFSET", new Gate(49, "RdmaCore.portAttrSize (Context.queryPort)")),
            // what only ibv_wr_flush takes, or asks the provider for it
            Map.entry("verbs_h.IBV_QP_EX_WITH_FLUSH", new Gate(45, "Feature.FLUSH (PreparedQueuePair.wantedSendOps)")),
            Map.entry("verbs_h.IBV_FLUSH_GLOBAL", new Gate(45, "argument of ibv_wr_flush only (Feature.FLUSH)")),
            Map.entry("verbs_h.IBV_FLUSH_PERSISTENT", new Gate(45, "argument of ibv_wr_flush only (Feature.FLUSH)")),
            Map.entry("verbs_h.IBV_FLUSH_RANGE", new Gate(45, "argument of ibv_wr_flush only (Feature.FLUSH)")),
            Map.entry("verbs_h.IBV_FLUSH_MR", new Gate(45, "argument of ibv_wr_flush only (Feature.FLUSH)")),
            Map.entry("verbs_h.IBV_WR_FLUSH", new Gate(45, "never handed to the library (no legacy FLUSH)")),
            // values the library only reads back or passes through to the kernel
            Map.entry("verbs_h.IBV_WC_FLUSH", new Gate(45, "a completion opcode: 44 never reports it")),
            Map.entry(
                    "verbs_h.IBV_ACCESS_FLUSH_GLOBAL",
                    new Gate(
                            45,
                            "access bit 44 hands to the kernel as is (ibv_reg_mr_iova2, ibv_modify_qp); device-gated")),
            Map.entry(
                    "verbs_h.IBV_ACCESS_FLUSH_PERSISTENT",
                    new Gate(
                            45,
                            "access bit 44 hands to the kernel as is (ibv_reg_mr_iova2, ibv_modify_qp); device-gated")),
            // the kernel's uapi (<rdma/ib_user_verbs.h> of linux-libc-dev 6.2), not rdma-core: bits of
            // device_cap_flags_ex, which 44 copies from the kernel unchanged
            Map.entry("verbs_h.IB_UVERBS_DEVICE_FLUSH_GLOBAL", new Gate(45, "kernel capability bit, read only")),
            Map.entry("verbs_h.IB_UVERBS_DEVICE_FLUSH_PERSISTENT", new Gate(45, "kernel capability bit, read only")),
            Map.entry("verbs_h.IB_UVERBS_DEVICE_ATOMIC_WRITE", new Gate(45, "kernel capability bit, read only"))));

    private static final List<Class<?>> GATED_CLASSES = List.of(ibv_qp_ex.class, ibv_port_attr.class, verbs_h.class);

    @Test
    void everyGatedItemIsBound() {
        List<String> missing = new ArrayList<>();
        for (String item : GATES.keySet()) {
            String cls = item.substring(0, item.indexOf('.'));
            String member = item.substring(item.indexOf('.') + 1);
            Class<?> c = GATED_CLASSES.stream()
                    .filter(k -> k.getSimpleName().equals(cls))
                    .findFirst()
                    .orElseThrow();
            try {
                var _ = c.getField(member); // called for its NoSuchFieldException
            } catch (NoSuchFieldException e) {
                missing.add(item);
            }
        }
        assertEquals(List.of(), missing, "gated items the bindings no longer have (renamed?)");
    }

    @Test
    void theStructGatesEndWhere44sStructsEnd() {
        // rdma-core 44's sizeof(struct ibv_qp_ex) and sizeof(struct ibv_port_attr) (its ABI probe: 352, 52)
        assertEquals(352, ibv_qp_ex.wr_flush$OFFSET);
        assertEquals(360, ibv_qp_ex.layout().byteSize(), "56's");
        assertEquals(52, ibv_port_attr.active_speed_ex$OFFSET);
        assertEquals(
                RdmaCore.Feature.FLUSH.since(),
                GATES.get("ibv_qp_ex.wr_flush$OFFSET").since());
    }

    @Test
    void everyFfiItemMarkedNewerThan44HasAGateOfTheSameRelease() throws Exception {
        List<String> problems = new ArrayList<>();
        for (Class<?> c : ffiClasses()) {
            for (Field f : c.getDeclaredFields()) {
                Since since = f.getAnnotation(Since.class);
                if (since == null
                        || !Modifier.isPublic(f.getModifiers())
                        || since.value() <= RdmaCore.OLDEST_SUPPORTED) {
                    continue;
                }
                String item = c.getSimpleName() + "." + f.getName();
                Gate gate = GATES.get(item);
                if (gate == null) {
                    problems.add(item + " (@Since(" + since.value() + ")): no gate; decide how RdmaCore keeps it "
                            + "from an older rdma-core and list it here");
                } else if (gate.since() != since.value()) {
                    problems.add(item + ": @Since(" + since.value() + ") but gated as " + gate.since());
                }
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    /** The ffi classes that can hold bound items: the header classes and every struct class. */
    private static List<Class<?>> ffiClasses() throws Exception {
        List<Class<?>> out = new ArrayList<>();
        var url = verbs_h.class.getResource("verbs_h.class");
        var dir = java.nio.file.Path.of(url.toURI()).getParent();
        try (var files = java.nio.file.Files.list(dir)) {
            for (var p : files.toList()) {
                String name = p.getFileName().toString();
                if (name.endsWith(".class") && !name.contains("$")) {
                    out.add(Class.forName("org.panamardma.verbs.ffi." + name.substring(0, name.length() - 6)));
                }
            }
        }
        assertTrue(out.contains(ibv_qp_ex.class) && out.size() > 40, out.toString());
        return out;
    }
}
