package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_comp_channel}. */
public final class ibv_comp_channel {
    private ibv_comp_channel() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_comp_channel", C_POINTER.withName("context"), C_INT.withName("fd"), C_INT.withName("refcnt"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long fd$OFFSET = CLayouts.offset(LAYOUT, "fd");
}
