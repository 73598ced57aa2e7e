package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_global_route}. */
public final class ibv_global_route {
    private ibv_global_route() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_global_route",
            ibv_gid.layout().withName("dgid"),
            C_U32.withName("flow_label"),
            C_U8.withName("sgid_index"),
            C_U8.withName("hop_limit"),
            C_U8.withName("traffic_class"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long dgid$OFFSET = CLayouts.offset(LAYOUT, "dgid");
    public static final long flow_label$OFFSET = CLayouts.offset(LAYOUT, "flow_label");
    public static final long sgid_index$OFFSET = CLayouts.offset(LAYOUT, "sgid_index");
    public static final long hop_limit$OFFSET = CLayouts.offset(LAYOUT, "hop_limit");
    public static final long traffic_class$OFFSET = CLayouts.offset(LAYOUT, "traffic_class");
}
