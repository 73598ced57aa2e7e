package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_query_device_ex_input}. */
public final class ibv_query_device_ex_input {
    private ibv_query_device_ex_input() {}

    private static final StructLayout LAYOUT =
            CLayouts.struct("ibv_query_device_ex_input", C_U32.withName("comp_mask"));

    public static StructLayout layout() {
        return LAYOUT;
    }
}
