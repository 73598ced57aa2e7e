package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_odp_caps}. */
public final class ibv_odp_caps {
    private ibv_odp_caps() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_odp_caps",
            C_U64.withName("general_caps"),
            CLayouts.struct(
                            null,
                            C_U32.withName("rc_odp_caps"),
                            C_U32.withName("uc_odp_caps"),
                            C_U32.withName("ud_odp_caps"))
                    .withName("per_transport_caps"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long general_caps$OFFSET = CLayouts.offset(LAYOUT, "general_caps");
    public static final long per_transport_caps$rc_odp_caps$OFFSET =
            CLayouts.offset(LAYOUT, "per_transport_caps.rc_odp_caps");
}
