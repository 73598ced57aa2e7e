package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_srq_attr}. */
public final class ibv_srq_attr {
    private ibv_srq_attr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_srq_attr", C_U32.withName("max_wr"), C_U32.withName("max_sge"), C_U32.withName("srq_limit"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long max_wr$OFFSET = CLayouts.offset(LAYOUT, "max_wr");
    public static final long max_sge$OFFSET = CLayouts.offset(LAYOUT, "max_sge");
    public static final long srq_limit$OFFSET = CLayouts.offset(LAYOUT, "srq_limit");
}
