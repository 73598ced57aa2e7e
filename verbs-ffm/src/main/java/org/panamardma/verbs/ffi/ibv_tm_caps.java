package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_tm_caps}. */
public final class ibv_tm_caps {
    private ibv_tm_caps() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_tm_caps",
            C_U32.withName("max_rndv_hdr_size"),
            C_U32.withName("max_num_tags"),
            C_U32.withName("flags"),
            C_U32.withName("max_ops"),
            C_U32.withName("max_sge"));

    public static StructLayout layout() {
        return LAYOUT;
    }
}
