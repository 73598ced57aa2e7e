package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_mw_bind_info}. */
public final class ibv_mw_bind_info {
    private ibv_mw_bind_info() {}

    private static final StructLayout LAYOUT = CLayouts.struct("ibv_mw_bind_info",
            C_POINTER.withName("mr"),
            C_U64.withName("addr"),
            C_U64.withName("length"),
            C_U32.withName("mw_access_flags"));

    public static StructLayout layout() {
        return LAYOUT;
    }


}
