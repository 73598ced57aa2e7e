package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_packet_pacing_caps}. */
public final class ibv_packet_pacing_caps {
    private ibv_packet_pacing_caps() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_packet_pacing_caps",
            C_U32.withName("qp_rate_limit_min"),
            C_U32.withName("qp_rate_limit_max"),
            C_U32.withName("supported_qpts"));

    public static StructLayout layout() {
        return LAYOUT;
    }
}
