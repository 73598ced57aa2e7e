package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_cq_init_attr_ex}. */
public final class ibv_cq_init_attr_ex {
    private ibv_cq_init_attr_ex() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_cq_init_attr_ex",
            C_U32.withName("cqe"),
            C_POINTER.withName("cq_context"),
            C_POINTER.withName("channel"),
            C_U32.withName("comp_vector"),
            C_U64.withName("wc_flags"),
            C_U32.withName("comp_mask"),
            C_U32.withName("flags"),
            C_POINTER.withName("parent_domain"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long cqe$OFFSET = CLayouts.offset(LAYOUT, "cqe");
    public static final long cq_context$OFFSET = CLayouts.offset(LAYOUT, "cq_context");
    public static final long channel$OFFSET = CLayouts.offset(LAYOUT, "channel");
    public static final long comp_vector$OFFSET = CLayouts.offset(LAYOUT, "comp_vector");
    public static final long wc_flags$OFFSET = CLayouts.offset(LAYOUT, "wc_flags");
    public static final long comp_mask$OFFSET = CLayouts.offset(LAYOUT, "comp_mask");
    public static final long flags$OFFSET = CLayouts.offset(LAYOUT, "flags");
    public static final long parent_domain$OFFSET = CLayouts.offset(LAYOUT, "parent_domain");
}
