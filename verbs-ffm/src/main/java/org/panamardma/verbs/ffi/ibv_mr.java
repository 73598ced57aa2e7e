package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_mr}. */
public final class ibv_mr {
    private ibv_mr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_mr",
            C_POINTER.withName("context"),
            C_POINTER.withName("pd"),
            C_POINTER.withName("addr"),
            C_SIZE_T.withName("length"),
            C_U32.withName("handle"),
            C_U32.withName("lkey"),
            C_U32.withName("rkey"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long addr$OFFSET = CLayouts.offset(LAYOUT, "addr");
    public static final long length$OFFSET = CLayouts.offset(LAYOUT, "length");
    public static final long lkey$OFFSET = CLayouts.offset(LAYOUT, "lkey");
    public static final long rkey$OFFSET = CLayouts.offset(LAYOUT, "rkey");
}
