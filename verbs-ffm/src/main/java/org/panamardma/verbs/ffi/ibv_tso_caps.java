package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_tso_caps}. */
public final class ibv_tso_caps {
    private ibv_tso_caps() {}

    private static final StructLayout LAYOUT =
            CLayouts.struct("ibv_tso_caps", C_U32.withName("max_tso"), C_U32.withName("supported_qpts"));

    public static StructLayout layout() {
        return LAYOUT;
    }
}
