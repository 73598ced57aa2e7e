package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_mw_bind_info}: what a memory window is bound to (a region, a range of it, the rights). */
public final class ibv_mw_bind_info {
    private ibv_mw_bind_info() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_mw_bind_info",
            C_POINTER.withName("mr"),
            C_U64.withName("addr"),
            C_U64.withName("length"),
            C_U32.withName("mw_access_flags"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long mr$OFFSET = CLayouts.offset(LAYOUT, "mr");
    public static final long addr$OFFSET = CLayouts.offset(LAYOUT, "addr");
    public static final long length$OFFSET = CLayouts.offset(LAYOUT, "length");
    public static final long mw_access_flags$OFFSET = CLayouts.offset(LAYOUT, "mw_access_flags");
}
