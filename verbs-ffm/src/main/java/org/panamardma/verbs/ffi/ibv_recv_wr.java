package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_recv_wr}. */
public final class ibv_recv_wr {
    private ibv_recv_wr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_recv_wr",
            C_U64.withName("wr_id"),
            C_POINTER.withName("next"),
            C_POINTER.withName("sg_list"),
            C_INT.withName("num_sge"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long wr_id$OFFSET = CLayouts.offset(LAYOUT, "wr_id");
    public static final long next$OFFSET = CLayouts.offset(LAYOUT, "next");
    public static final long sg_list$OFFSET = CLayouts.offset(LAYOUT, "sg_list");
    public static final long num_sge$OFFSET = CLayouts.offset(LAYOUT, "num_sge");
}
