package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_srq_init_attr}. */
public final class ibv_srq_init_attr {
    private ibv_srq_init_attr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_srq_init_attr",
            C_POINTER.withName("srq_context"),
            ibv_srq_attr.layout().withName("attr"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long srq_context$OFFSET = CLayouts.offset(LAYOUT, "srq_context");
    public static final long attr$OFFSET = CLayouts.offset(LAYOUT, "attr");
    public static final long attr$max_wr$OFFSET = CLayouts.offset(LAYOUT, "attr.max_wr");
    public static final long attr$max_sge$OFFSET = CLayouts.offset(LAYOUT, "attr.max_sge");
    public static final long attr$srq_limit$OFFSET = CLayouts.offset(LAYOUT, "attr.srq_limit");
}
