package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_ah_attr}. */
public final class ibv_ah_attr {
    private ibv_ah_attr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_ah_attr",
            ibv_global_route.layout().withName("grh"),
            C_U16.withName("dlid"),
            C_U8.withName("sl"),
            C_U8.withName("src_path_bits"),
            C_U8.withName("static_rate"),
            C_U8.withName("is_global"),
            C_U8.withName("port_num"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long grh$OFFSET = CLayouts.offset(LAYOUT, "grh");
    public static final long dlid$OFFSET = CLayouts.offset(LAYOUT, "dlid");
    public static final long sl$OFFSET = CLayouts.offset(LAYOUT, "sl");
    public static final long is_global$OFFSET = CLayouts.offset(LAYOUT, "is_global");
    public static final long port_num$OFFSET = CLayouts.offset(LAYOUT, "port_num");
}
